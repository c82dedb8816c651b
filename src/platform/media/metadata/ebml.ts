import { readExactly, Unreadable, type RangeReader } from "./reader";

const ID = {
  EBML: 0x1a45dfa3,
  SEGMENT: 0x18538067,
  SEEK_HEAD: 0x114d9b74,
  SEEK: 0x4dbb,
  SEEK_ID: 0x53ab,
  SEEK_POSITION: 0x53ac,
  INFO: 0x1549a966,
  TIMESTAMP_SCALE: 0x2ad7b1,
  DURATION: 0x4489,
};

interface Element {
  id: number;
  /** Offset of the element's data. */
  start: number;
  /** End of its data; null for an element of unknown size (live streams). */
  end: number | null;
}

const MAX_ELEMENTS = 4096;

/** A variable-length integer: its length from the leading zeros of the first byte. */
function vint(bytes: Uint8Array, at: number, keepMarker: boolean): { value: number; length: number; allOnes: boolean } {
  const first = bytes[at];
  if (first === undefined || first === 0) throw new Unreadable("an invalid variable-length integer");
  const length = Math.clz32(first) - 23;
  if (at + length > bytes.length) throw new Unreadable("a variable-length integer is cut short");
  let value = keepMarker ? first : first & (0xff >> length);
  let allOnes = value === 0xff >> length;
  for (let i = 1; i < length; i++) {
    value = value * 256 + bytes[at + i]!;
    if (bytes[at + i] !== 0xff) allOnes = false;
  }
  return { value, length, allOnes };
}

async function elementAt(reader: RangeReader, offset: number): Promise<Element> {
  const head = await reader.read(offset, 12);
  const id = vint(head, 0, true);
  if (id.length > 4) throw new Unreadable("an element id longer than 4 bytes");
  const size = vint(head, id.length, false);
  const start = offset + id.length + size.length;
  if (size.allOnes) return { id: id.value, start, end: null };
  const end = start + size.value;
  if (end > reader.size) throw new Unreadable("an element runs past the end of the file");
  return { id: id.value, start, end };
}

function unsigned(bytes: Uint8Array): number {
  return bytes.reduce((value, byte) => value * 256 + byte, 0);
}

/** The children of a sized element, read whole (SeekHead, Info: a few hundred bytes). */
async function children(reader: RangeReader, parent: Element): Promise<{ id: number; data: Uint8Array }[]> {
  if (parent.end === null || parent.end - parent.start > 64 * 1024) throw new Unreadable("a header element is too large");
  const data = await readExactly(reader, parent.start, parent.end - parent.start);
  const out: { id: number; data: Uint8Array }[] = [];
  for (let at = 0; at < data.length; ) {
    const id = vint(data, at, true);
    const size = vint(data, at + id.length, false);
    const start = at + id.length + size.length;
    if (size.allOnes || start + size.value > data.length) throw new Unreadable("a child element has no usable size");
    out.push({ id: id.value, data: data.subarray(start, start + size.value) });
    at = start + size.value;
  }
  return out;
}

async function infoDuration(reader: RangeReader, info: Element): Promise<number | null> {
  let scale = 1_000_000;
  let duration: number | null = null;
  for (const child of await children(reader, info)) {
    if (child.id === ID.TIMESTAMP_SCALE) scale = unsigned(child.data);
    if (child.id === ID.DURATION) {
      const view = new DataView(child.data.buffer, child.data.byteOffset, child.data.byteLength);
      if (child.data.length === 4) duration = view.getFloat32(0);
      else if (child.data.length === 8) duration = view.getFloat64(0);
      else throw new Unreadable("a duration of unexpected width");
    }
  }
  if (duration === null || !Number.isFinite(duration) || duration < 0 || scale === 0) return null;
  return (duration * scale) / 1e9;
}

/** Where the SeekHead says Info is, relative to the segment's data. */
async function seekInfo(reader: RangeReader, seekHead: Element): Promise<number | null> {
  for (const seek of await children(reader, seekHead)) {
    if (seek.id !== ID.SEEK) continue;
    let target: number | null = null;
    let position: number | null = null;
    for (let at = 0; at < seek.data.length; ) {
      const id = vint(seek.data, at, true);
      const size = vint(seek.data, at + id.length, false);
      const start = at + id.length + size.length;
      const value = seek.data.subarray(start, start + size.value);
      if (id.value === ID.SEEK_ID) target = unsigned(value);
      if (id.value === ID.SEEK_POSITION) position = unsigned(value);
      at = start + size.value;
    }
    if (target === ID.INFO && position !== null) return position;
  }
  return null;
}

/**
 * Duration in seconds of a WebM or Matroska file from `Segment/Info` (Duration × TimestampScale).
 * The walk skips top-level elements by size and follows the SeekHead when an element of unknown
 * size (a live cluster) is in the way. Null when the file states no duration (live recordings).
 */
export async function ebmlDuration(reader: RangeReader): Promise<number | null> {
  const header = await elementAt(reader, 0);
  if (header.id !== ID.EBML || header.end === null) throw new Unreadable("not an EBML file");
  const segment = await elementAt(reader, header.end);
  if (segment.id !== ID.SEGMENT) throw new Unreadable("no Segment after the EBML header");
  const segmentEnd = segment.end ?? reader.size;
  let infoAt: number | null = null;
  let offset = segment.start;
  for (let count = 0; offset + 2 <= segmentEnd; count++) {
    if (count >= MAX_ELEMENTS) throw new Unreadable("too many elements");
    const element = await elementAt(reader, offset);
    if (element.id === ID.INFO) return infoDuration(reader, element);
    if (element.id === ID.SEEK_HEAD) {
      const position = await seekInfo(reader, element);
      if (position !== null) infoAt = segment.start + position;
    }
    if (element.end === null) break;
    offset = element.end;
  }
  if (infoAt === null) throw new Unreadable("no Info element");
  const info = await elementAt(reader, infoAt);
  if (info.id !== ID.INFO) throw new Unreadable("the SeekHead points past Info");
  return infoDuration(reader, info);
}
