import { readExactly, Unreadable, type RangeReader } from "./reader";

/**
 * Page count of a PDF from its structure: `startxref` → cross-reference sections (classic tables
 * or compressed xref streams, following `/Prev` and `/XRefStm`) → the trailer's `/Root` →
 * `/Pages` → `/Count`, with objects inside object streams resolved too. Only the tail, the xref
 * sections and three or four objects are read, never the whole file.
 */
export async function pdfPageCount(reader: RangeReader): Promise<number> {
  const document = new PdfDocument(reader);
  const trailer = await document.load();
  const root = trailer.get("Root");
  const catalog = await document.resolve(root);
  if (!(catalog instanceof Map)) throw new Unreadable("the catalog is not a dictionary");
  const pages = await document.resolve(catalog.get("Pages"));
  if (!(pages instanceof Map)) throw new Unreadable("the page tree is not a dictionary");
  const count = await document.resolve(pages.get("Count"));
  if (typeof count !== "number" || !Number.isInteger(count) || count < 0) throw new Unreadable("the page tree has no usable /Count");
  return count;
}

// --- values -------------------------------------------------------------------------------------

class Ref {
  constructor(
    readonly num: number,
    readonly gen: number,
  ) {}
}
class Name {
  constructor(readonly value: string) {}
}
type PdfValue = number | boolean | null | string | Name | Ref | PdfValue[] | Map<string, PdfValue>;

/** The parser reached the end of the bytes it was given; the caller reads more and tries again. */
class NeedMore extends Error {}

const WHITESPACE = new Set([0, 9, 10, 12, 13, 32]);
const DELIMITERS = new Set([40, 41, 60, 62, 91, 93, 123, 125, 47, 37]);
const isRegular = (byte: number) => !WHITESPACE.has(byte) && !DELIMITERS.has(byte);

class Parser {
  pos: number;

  constructor(
    readonly bytes: Uint8Array,
    start = 0,
  ) {
    this.pos = start;
  }

  private peek(offset = 0): number {
    const byte = this.bytes[this.pos + offset];
    if (byte === undefined) throw new NeedMore();
    return byte;
  }

  skipSpace(): void {
    for (;;) {
      const byte = this.peek();
      if (WHITESPACE.has(byte)) this.pos++;
      else if (byte === 37) {
        // A comment runs to the end of the line.
        while (this.peek() !== 10 && this.peek() !== 13) this.pos++;
      } else return;
    }
  }

  /** A bare word (number, keyword) without consuming anything before it but whitespace. */
  word(): string {
    this.skipSpace();
    const start = this.pos;
    while (isRegular(this.peek())) this.pos++;
    return String.fromCharCode(...this.bytes.subarray(start, this.pos));
  }

  keyword(expected: string): void {
    const found = this.word();
    if (found !== expected) throw new Unreadable(`expected ${expected}, found ${found.slice(0, 20) || "a delimiter"}`);
  }

  value(depth = 0): PdfValue {
    if (depth > 32) throw new Unreadable("values nest too deeply");
    this.skipSpace();
    const byte = this.peek();
    if (byte === 47) return this.name();
    if (byte === 40) return this.literalString();
    if (byte === 60) {
      if (this.peek(1) === 60) return this.dictionary(depth);
      return this.hexString();
    }
    if (byte === 91) {
      this.pos++;
      const items: PdfValue[] = [];
      for (;;) {
        this.skipSpace();
        if (this.peek() === 93) {
          this.pos++;
          return items;
        }
        items.push(this.value(depth + 1));
      }
    }
    const word = this.word();
    if (word === "") throw new Unreadable(`an unexpected character ${String.fromCharCode(byte)}`);
    if (word === "true" || word === "false") return word === "true";
    if (word === "null") return null;
    if (!/^[+-]?(\d+\.?\d*|\.\d+)$/.test(word)) throw new Unreadable(`an unexpected keyword ${word.slice(0, 20)}`);
    const number = Number(word);
    // `num gen R` is a reference: look ahead without giving up the number if it is not one.
    // (Running out of bytes in the look-ahead asks for more rather than guessing.)
    if (/^\d+$/.test(word)) {
      const mark = this.pos;
      const gen = this.word();
      if (/^\d+$/.test(gen) && this.word() === "R") return new Ref(number, Number(gen));
      this.pos = mark;
    }
    return number;
  }

  private name(): Name {
    this.pos++;
    const start = this.pos;
    while (isRegular(this.peek())) this.pos++;
    const raw = String.fromCharCode(...this.bytes.subarray(start, this.pos));
    return new Name(raw.replace(/#([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))));
  }

  private literalString(): string {
    this.pos++;
    let depth = 1;
    for (;;) {
      const byte = this.peek();
      this.pos++;
      if (byte === 92) this.pos++;
      else if (byte === 40) depth++;
      else if (byte === 41 && --depth === 0) return "";
    }
  }

  private hexString(): string {
    this.pos++;
    while (this.peek() !== 62) this.pos++;
    this.pos++;
    return "";
  }

  private dictionary(depth: number): Map<string, PdfValue> {
    this.pos += 2;
    const entries = new Map<string, PdfValue>();
    for (;;) {
      this.skipSpace();
      if (this.peek() === 62 && this.peek(1) === 62) {
        this.pos += 2;
        return entries;
      }
      const key = this.value(depth + 1);
      if (!(key instanceof Name)) throw new Unreadable("a dictionary key is not a name");
      entries.set(key.value, this.value(depth + 1));
    }
  }
}

// --- the file -----------------------------------------------------------------------------------

type XrefEntry = { type: "free" } | { type: "offset"; offset: number } | { type: "compressed"; stream: number; index: number };

/** One cross-reference section: looks an object up, or says it does not list it. */
interface XrefSection {
  lookup(num: number): Promise<XrefEntry | undefined>;
}

const MAX_SECTIONS = 32;
const MAX_WINDOW = 1024 * 1024;
const MAX_INFLATED = 16 * 1024 * 1024;
const encoder = new TextEncoder();

function lastIndexOf(haystack: Uint8Array, needle: Uint8Array): number {
  outer: for (let i = haystack.length - needle.length; i >= 0; i--) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

const integer = (value: PdfValue | undefined, what: string): number => {
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0) throw new Unreadable(`${what} is not a non-negative integer`);
  return value;
};

class PdfDocument {
  private sections: XrefSection[] = [];
  private objectStreams = new Map<number, Promise<{ data: Uint8Array; offsets: Map<number, number> }>>();
  private resolving = 0;

  constructor(private readonly reader: RangeReader) {}

  /** Reads the xref chain from the last `startxref`; returns the newest trailer that names `/Root`. */
  async load(): Promise<Map<string, PdfValue>> {
    const tailLength = Math.min(this.reader.size, 2048);
    const tail = await readExactly(this.reader, this.reader.size - tailLength, tailLength);
    const at = lastIndexOf(tail, encoder.encode("startxref"));
    if (at === -1) throw new Unreadable("no startxref");
    const parser = new Parser(tail, at + 9);
    let trailer: Map<string, PdfValue> | null = null;
    const offset = this.parseOrUnreadable(() => parser.word());
    if (!/^\d+$/.test(offset)) throw new Unreadable("startxref names no offset");
    let next: number | null = Number(offset);
    const seen = new Set<number>();
    while (next !== null) {
      if (seen.has(next) || seen.size >= MAX_SECTIONS) throw new Unreadable("the xref chain loops or is too long");
      seen.add(next);
      const found = await this.section(next);
      trailer ??= found.trailer.has("Root") ? found.trailer : null;
      const prev = found.trailer.get("Prev");
      next = prev === undefined ? null : integer(prev, "/Prev");
    }
    if (!trailer) throw new Unreadable("no trailer names /Root");
    return trailer;
  }

  private parseOrUnreadable<T>(parse: () => T): T {
    try {
      return parse();
    } catch (err) {
      if (err instanceof NeedMore) throw new Unreadable("a structure is cut short");
      throw err;
    }
  }

  /** Parses with a growing window from `offset` until the value fits. */
  private async parseAt<T>(offset: number, parse: (parser: Parser) => T): Promise<{ value: T; bytes: Uint8Array; end: number }> {
    for (let window = 4096; ; window *= 4) {
      const bytes = await this.reader.read(offset, window);
      try {
        const parser = new Parser(bytes);
        const value = parse(parser);
        return { value, bytes, end: offset + parser.pos };
      } catch (err) {
        if (!(err instanceof NeedMore)) throw err;
        if (bytes.length < window || window >= MAX_WINDOW) throw new Unreadable("a structure is cut short or too large");
      }
    }
  }

  /** The section at `offset`: a classic table (`xref`) or an xref stream object; adds it (and a hybrid file's `/XRefStm`) to the chain. */
  private async section(offset: number): Promise<{ trailer: Map<string, PdfValue> }> {
    const start = await this.parseAt(offset, (parser) => {
      parser.skipSpace();
      return parser.bytes[parser.pos] === 120 ? "table" : "stream";
    });
    if (start.value === "stream") {
      const object = await this.objectAt(offset);
      if (!object.stream) throw new Unreadable("the xref offset points to an object that is not a stream");
      this.sections.push(await this.streamSection(object.dict, object.stream));
      return { trailer: object.dict };
    }
    const { section, trailer } = await this.tableSection(offset);
    this.sections.push(section);
    const hybrid = trailer.get("XRefStm");
    if (hybrid !== undefined) {
      const object = await this.objectAt(integer(hybrid, "/XRefStm"));
      if (!object.stream) throw new Unreadable("/XRefStm is not a stream");
      this.sections.push(await this.streamSection(object.dict, object.stream));
    }
    return { trailer };
  }

  /** A classic table: subsection headers are walked now, entries (20 bytes each) read on lookup. */
  private async tableSection(offset: number): Promise<{ section: XrefSection; trailer: Map<string, PdfValue> }> {
    const subsections: { first: number; count: number; at: number; entryLength: number }[] = [];
    let position = (await this.parseAt(offset, (parser) => parser.keyword("xref"))).end;
    for (let guard = 0; ; guard++) {
      if (guard > 10_000) throw new Unreadable("too many xref subsections");
      const header = await this.parseAt(position, (parser) => {
        const word = parser.word();
        if (word === "trailer") return { trailer: parser.value() };
        const count = parser.word();
        if (!/^\d+$/.test(word) || !/^\d+$/.test(count)) throw new Unreadable("a malformed xref subsection header");
        // The header line ends with one EOL; entries follow.
        while (parser.bytes[parser.pos] === 32) parser.pos++;
        if (parser.bytes[parser.pos] === 13) parser.pos++;
        if (parser.bytes[parser.pos] === 10) parser.pos++;
        return { first: Number(word), count: Number(count) };
      });
      if ("trailer" in header.value) {
        if (!(header.value.trailer instanceof Map)) throw new Unreadable("the trailer is not a dictionary");
        return { section: this.tableLookup(subsections), trailer: header.value.trailer };
      }
      const { first, count } = header.value;
      let entryLength = 20;
      if (count > 0) {
        const sample = await readExactly(this.reader, header.end, 19);
        // The standard entry is 20 bytes; some writers end it with a bare newline (19).
        if (sample[18] === 10) entryLength = 19;
      }
      subsections.push({ first, count, at: header.end, entryLength });
      position = header.end + count * entryLength;
    }
  }

  private tableLookup(subsections: { first: number; count: number; at: number; entryLength: number }[]): XrefSection {
    return {
      lookup: async (num) => {
        for (const sub of subsections) {
          if (num < sub.first || num >= sub.first + sub.count) continue;
          const entry = String.fromCharCode(...(await readExactly(this.reader, sub.at + (num - sub.first) * sub.entryLength, 18)));
          const match = /^(\d{10}) (\d{5}) ([nf])$/.exec(entry);
          if (!match) throw new Unreadable("a malformed xref entry");
          return match[3] === "n" ? { type: "offset", offset: Number(match[1]) } : { type: "free" };
        }
        return undefined;
      },
    };
  }

  private async streamSection(dict: Map<string, PdfValue>, stream: { start: number }): Promise<XrefSection> {
    const data = await this.streamData(dict, stream.start);
    const widths = dict.get("W");
    if (!Array.isArray(widths) || widths.length !== 3) throw new Unreadable("an xref stream without /W");
    const [w1, w2, w3] = widths.map((width) => integer(width, "/W"));
    const rowLength = w1! + w2! + w3!;
    if (rowLength === 0) throw new Unreadable("an xref stream with empty rows");
    const index = dict.get("Index") ?? [0, integer(dict.get("Size"), "/Size")];
    if (!Array.isArray(index) || index.length % 2 !== 0) throw new Unreadable("a malformed /Index");
    const entries = new Map<number, XrefEntry>();
    const field = (row: number, from: number, width: number, fallback: number) => {
      if (width === 0) return fallback;
      let value = 0;
      for (let i = 0; i < width; i++) value = value * 256 + data[row + from + i]!;
      return value;
    };
    let row = 0;
    for (let i = 0; i < index.length; i += 2) {
      const first = integer(index[i], "/Index");
      const count = integer(index[i + 1], "/Index");
      for (let n = 0; n < count; n++, row += rowLength) {
        if (row + rowLength > data.length) throw new Unreadable("an xref stream is shorter than its /Index");
        const type = field(row, 0, w1!, 1);
        const second = field(row, w1!, w2!, 0);
        const third = field(row, w1! + w2!, w3!, 0);
        if (type === 0) entries.set(first + n, { type: "free" });
        else if (type === 1) entries.set(first + n, { type: "offset", offset: second });
        else if (type === 2) entries.set(first + n, { type: "compressed", stream: second, index: third });
      }
    }
    return { lookup: async (num) => entries.get(num) };
  }

  private async entry(num: number): Promise<XrefEntry> {
    for (const section of this.sections) {
      const found = await section.lookup(num);
      if (found) return found;
    }
    throw new Unreadable(`object ${num} is not in the cross-reference`);
  }

  /** `num gen obj <value> [stream]` at `offset`. */
  private async objectAt(offset: number): Promise<{ dict: Map<string, PdfValue>; value: PdfValue; stream: { start: number } | null }> {
    const parsed = await this.parseAt(offset, (parser) => {
      parser.word();
      parser.word();
      parser.keyword("obj");
      const value = parser.value();
      if (!(value instanceof Map)) return { value, stream: null };
      parser.skipSpace();
      const keyword = parser.word();
      if (keyword !== "stream") return { value, stream: null };
      // `stream` is followed by CRLF or LF (a bare CR is tolerated), then the data.
      if (parser.pos + 2 > parser.bytes.length) throw new NeedMore();
      if (parser.bytes[parser.pos] === 13) parser.pos++;
      if (parser.bytes[parser.pos] === 10) parser.pos++;
      return { value, stream: { start: parser.pos } };
    });
    const { value, stream } = parsed.value;
    return { value, dict: value instanceof Map ? value : new Map(), stream: stream ? { start: offset + stream.start } : null };
  }

  private async streamData(dict: Map<string, PdfValue>, start: number): Promise<Uint8Array> {
    const length = integer(await this.resolve(dict.get("Length")), "/Length");
    if (length > MAX_INFLATED) throw new Unreadable("a stream is too large to read");
    const raw = await readExactly(this.reader, start, length);
    const filter = dict.get("Filter");
    const filters = (Array.isArray(filter) ? filter : filter === undefined ? [] : [filter]).map((name) => (name instanceof Name ? name.value : ""));
    if (filters.length === 0) return raw;
    if (filters.length !== 1 || filters[0] !== "FlateDecode") throw new Unreadable(`an unsupported stream filter ${filters.join(",")}`);
    const inflated = await inflate(raw);
    const params = dict.get("DecodeParms");
    return params instanceof Map ? unpredict(inflated, params) : inflated;
  }

  /** A value with references followed (a few levels: catalog → pages → count). */
  async resolve(value: PdfValue | undefined): Promise<PdfValue> {
    if (!(value instanceof Ref)) return value ?? null;
    if (++this.resolving > 64) throw new Unreadable("too many indirect objects");
    const entry = await this.entry(value.num);
    if (entry.type === "free") throw new Unreadable(`object ${value.num} is free`);
    if (entry.type === "offset") return this.resolve((await this.objectAt(entry.offset)).value);
    return this.resolve(await this.compressedObject(entry.stream, entry.index, value.num));
  }

  private async compressedObject(streamNum: number, index: number, num: number): Promise<PdfValue> {
    let loaded = this.objectStreams.get(streamNum);
    if (!loaded) {
      loaded = this.loadObjectStream(streamNum);
      this.objectStreams.set(streamNum, loaded);
    }
    const { data, offsets } = await loaded;
    const at = offsets.get(num);
    if (at === undefined) throw new Unreadable(`object ${num} is not in object stream ${streamNum} (index ${index})`);
    return this.parseOrUnreadable(() => new Parser(data, at).value());
  }

  private async loadObjectStream(streamNum: number): Promise<{ data: Uint8Array; offsets: Map<number, number> }> {
    const entry = await this.entry(streamNum);
    if (entry.type !== "offset") throw new Unreadable("an object stream inside another");
    const object = await this.objectAt(entry.offset);
    if (!object.stream) throw new Unreadable("an object stream without data");
    const data = await this.streamData(object.dict, object.stream.start);
    const count = integer(object.dict.get("N"), "/N");
    const first = integer(object.dict.get("First"), "/First");
    const parser = new Parser(data);
    const offsets = new Map<number, number>();
    this.parseOrUnreadable(() => {
      for (let i = 0; i < count; i++) {
        const num = Number(parser.word());
        const offset = Number(parser.word());
        if (!Number.isInteger(num) || !Number.isInteger(offset)) throw new Unreadable("a malformed object stream header");
        offsets.set(num, first + offset);
      }
    });
    return { data, offsets };
  }
}

/** zlib inflate through the runtime's DecompressionStream, stopped past MAX_INFLATED (a deflate bomb). */
async function inflate(data: Uint8Array): Promise<Uint8Array> {
  const reader = new Blob([data]).stream().pipeThrough(new DecompressionStream("deflate")).getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      total += value.length;
      if (total > MAX_INFLATED) throw new Unreadable("a stream inflates past the limit");
      chunks.push(value);
    }
  } catch (err) {
    await reader.cancel().catch(() => undefined);
    throw err instanceof Unreadable ? err : new Unreadable("a stream does not inflate");
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

/** Undoes a PNG predictor (/Predictor 10-15), the one xref streams use; TIFF predictor 2 is refused. */
function unpredict(data: Uint8Array, params: Map<string, PdfValue>): Uint8Array {
  const predictor = params.get("Predictor") ?? 1;
  if (predictor === 1) return data;
  if (typeof predictor !== "number" || predictor < 10) throw new Unreadable("an unsupported predictor");
  const colors = typeof params.get("Colors") === "number" ? (params.get("Colors") as number) : 1;
  const bits = typeof params.get("BitsPerComponent") === "number" ? (params.get("BitsPerComponent") as number) : 8;
  const columns = typeof params.get("Columns") === "number" ? (params.get("Columns") as number) : 1;
  const pixel = Math.max(1, Math.ceil((colors * bits) / 8));
  const rowLength = Math.ceil((colors * bits * columns) / 8);
  if (rowLength <= 0) throw new Unreadable("an empty predictor row");
  const rows = Math.floor(data.length / (rowLength + 1));
  const out = new Uint8Array(rows * rowLength);
  for (let r = 0; r < rows; r++) {
    const type = data[r * (rowLength + 1)]!;
    const source = r * (rowLength + 1) + 1;
    const row = r * rowLength;
    for (let i = 0; i < rowLength; i++) {
      const raw = data[source + i]!;
      const left = i >= pixel ? out[row + i - pixel]! : 0;
      const up = r > 0 ? out[row - rowLength + i]! : 0;
      const upLeft = r > 0 && i >= pixel ? out[row - rowLength + i - pixel]! : 0;
      let value: number;
      switch (type) {
        case 0:
          value = raw;
          break;
        case 1:
          value = raw + left;
          break;
        case 2:
          value = raw + up;
          break;
        case 3:
          value = raw + ((left + up) >> 1);
          break;
        case 4: {
          const p = left + up - upLeft;
          const pa = Math.abs(p - left);
          const pb = Math.abs(p - up);
          const pc = Math.abs(p - upLeft);
          value = raw + (pa <= pb && pa <= pc ? left : pb <= pc ? up : upLeft);
          break;
        }
        default:
          throw new Unreadable("an unknown PNG filter type");
      }
      out[row + i] = value & 0xff;
    }
  }
  return out;
}
