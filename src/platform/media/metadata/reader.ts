/**
 * Random access to a file by byte ranges, so a parser reads the few kilobytes it needs of a file
 * that may be hundreds of megabytes (a Worker could not hold it whole).
 */
export interface RangeReader {
  readonly size: number;
  /** Up to `length` bytes from `offset` (fewer at the end of the file). */
  read(offset: number, length: number): Promise<Uint8Array>;
}

/** The file does not have the structure its parser expects; its metadata stays unknown. */
export class Unreadable extends Error {}

/** A reader over bytes in memory (tests, small files). */
export function bytesReader(bytes: Uint8Array): RangeReader {
  return {
    size: bytes.length,
    read: async (offset, length) => bytes.subarray(Math.max(0, offset), Math.min(bytes.length, offset + length)),
  };
}

/** A reader over one version of an R2 object: every range is asked for that etag, so a replaced object is not mixed in. */
export function r2Reader(bucket: R2Bucket, key: string, etag: string, size: number): RangeReader {
  return {
    size,
    async read(offset, length) {
      const end = Math.min(size, offset + length);
      if (offset >= end) return new Uint8Array(0);
      const object = await bucket.get(key, { range: { offset, length: end - offset }, onlyIf: { etagMatches: etag } });
      if (!object || !("body" in object)) throw new Unreadable("the object is gone or was replaced");
      return new Uint8Array(await object.arrayBuffer());
    },
  };
}

/**
 * Reads in aligned blocks and keeps the last few, so a parser that walks small headers costs a
 * handful of storage reads; `maxReads` bounds the work a hostile file can cause.
 */
export function blockReader(inner: RangeReader, options: { blockSize?: number; keep?: number; maxReads?: number } = {}): RangeReader {
  const blockSize = options.blockSize ?? 64 * 1024;
  const keep = options.keep ?? 8;
  let reads = options.maxReads ?? 64;
  const blocks = new Map<number, Uint8Array>();
  const fetch = async (offset: number, length: number) => {
    if (reads-- <= 0) throw new Unreadable("too many reads");
    return inner.read(offset, length);
  };
  const block = async (index: number) => {
    let found = blocks.get(index);
    if (found) {
      blocks.delete(index);
    } else {
      found = await fetch(index * blockSize, blockSize);
      if (blocks.size >= keep) blocks.delete(blocks.keys().next().value!);
    }
    blocks.set(index, found);
    return found;
  };
  return {
    size: inner.size,
    async read(offset, length) {
      const end = Math.min(inner.size, offset + length);
      if (offset >= end) return new Uint8Array(0);
      if (end - offset > blockSize) return fetch(offset, end - offset);
      const first = Math.floor(offset / blockSize);
      const last = Math.floor((end - 1) / blockSize);
      const out = new Uint8Array(end - offset);
      for (let index = first; index <= last; index++) {
        const data = await block(index);
        const start = index * blockSize;
        const from = Math.max(offset, start);
        const to = Math.min(end, start + data.length);
        if (to > from) out.set(data.subarray(from - start, to - start), from - offset);
      }
      return out;
    },
  };
}

/** Exactly `length` bytes at `offset`, or Unreadable. */
export async function readExactly(reader: RangeReader, offset: number, length: number): Promise<Uint8Array> {
  if (offset < 0 || offset + length > reader.size) throw new Unreadable("a structure runs past the end of the file");
  const bytes = await reader.read(offset, length);
  if (bytes.length !== length) throw new Unreadable("a short read");
  return bytes;
}
