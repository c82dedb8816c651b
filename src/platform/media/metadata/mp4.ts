import { readExactly, Unreadable, type RangeReader } from "./reader";

interface Box {
  type: string;
  /** Offset of the box's content (after its header). */
  start: number;
  end: number;
}

const MAX_BOXES = 4096;

async function boxAt(reader: RangeReader, offset: number, limit: number): Promise<Box> {
  const header = await readExactly(reader, offset, Math.min(16, limit - offset));
  if (header.length < 8) throw new Unreadable("a box header is cut short");
  const view = new DataView(header.buffer, header.byteOffset, header.byteLength);
  const size32 = view.getUint32(0);
  const type = String.fromCharCode(header[4]!, header[5]!, header[6]!, header[7]!);
  let size: number;
  let headerLength = 8;
  if (size32 === 1) {
    if (header.length < 16) throw new Unreadable("a large box header is cut short");
    size = Number(view.getBigUint64(8));
    headerLength = 16;
  } else if (size32 === 0) {
    size = limit - offset;
  } else {
    size = size32;
  }
  if (size < headerLength || offset + size > limit) throw new Unreadable(`the ${type} box has an impossible size`);
  return { type, start: offset + headerLength, end: offset + size };
}

/** The first child box of the given type between `start` and `end`. */
async function findBox(reader: RangeReader, start: number, end: number, type: string): Promise<Box | null> {
  let offset = start;
  for (let count = 0; offset + 8 <= end; count++) {
    if (count >= MAX_BOXES) throw new Unreadable("too many boxes");
    const box = await boxAt(reader, offset, end);
    if (box.type === type) return box;
    offset = box.end;
  }
  return null;
}

/** Full-box version byte, then (timescale, duration) from `mvhd`, or the fragment duration from `mehd`. */
async function movieHeader(reader: RangeReader, box: Box): Promise<{ timescale: number; duration: number }> {
  const version = (await readExactly(reader, box.start, 1))[0];
  const bytes = await readExactly(reader, box.start, version === 1 ? 32 : 20);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (version === 1) return { timescale: view.getUint32(20), duration: Number(view.getBigUint64(24)) };
  return { timescale: view.getUint32(12), duration: view.getUint32(16) };
}

async function fragmentDuration(reader: RangeReader, moov: Box): Promise<number | null> {
  const mvex = await findBox(reader, moov.start, moov.end, "mvex");
  const mehd = mvex ? await findBox(reader, mvex.start, mvex.end, "mehd") : null;
  if (!mehd) return null;
  const version = (await readExactly(reader, mehd.start, 1))[0];
  const bytes = await readExactly(reader, mehd.start + 4, version === 1 ? 8 : 4);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return version === 1 ? Number(view.getBigUint64(0)) : view.getUint32(0);
}

/**
 * Duration in seconds of an ISO base media file (MP4, MOV, M4V, 3GP) from `moov/mvhd`, wherever
 * `moov` sits (before or after the media data; the walk skips boxes by their sizes). A fragmented
 * file with no duration in `mvhd` falls back to `mvex/mehd`. Null when the file states none.
 */
export async function mp4Duration(reader: RangeReader): Promise<number | null> {
  const moov = await findBox(reader, 0, reader.size, "moov");
  if (!moov) throw new Unreadable("no moov box");
  const mvhd = await findBox(reader, moov.start, moov.end, "mvhd");
  if (!mvhd) throw new Unreadable("no mvhd box");
  const { timescale, duration } = await movieHeader(reader, mvhd);
  if (timescale === 0) throw new Unreadable("a zero timescale");
  // All ones means "unknown" in both versions.
  const unknown = duration === 0xffffffff || duration >= 2 ** 53;
  if (duration > 0 && !unknown) return duration / timescale;
  const fragments = await fragmentDuration(reader, moov);
  return fragments && fragments > 0 ? fragments / timescale : null;
}
