/**
 * A streaming reader of `multipart/form-data` for the worker upload: the small text fields are
 * read into memory, the file part is handed on as a stream that ends at the closing delimiter.
 * Nothing holds more than one network chunk plus a delimiter's length, whatever the file's size.
 * (The maintained parsers for Workers hand each part over as one buffer.)
 */

export class MultipartError extends Error {}

const CRLF = new Uint8Array([13, 10]);
const HEADER_END = new Uint8Array([13, 10, 13, 10]);
const encoder = new TextEncoder();
const decoder = new TextDecoder();

const LIMITS = {
  /** Bytes before the first delimiter (browsers send none). */
  preamble: 1024,
  /** Header block of one part. */
  headers: 8 * 1024,
  /** One text field's value. */
  field: 1024,
  fields: 16,
};

/** The boundary of a `multipart/form-data` content type, or null. */
export function formBoundary(contentType: string | null): string | null {
  if (!contentType) return null;
  const [type, ...params] = contentType.split(";");
  if (type!.trim().toLowerCase() !== "multipart/form-data") return null;
  for (const param of params) {
    const match = /^\s*boundary\s*=\s*(?:"([^"]{1,70})"|([^\s";]{1,70}))\s*$/i.exec(param);
    if (match) return match[1] ?? match[2]!;
  }
  return null;
}

function indexOf(haystack: Uint8Array, needle: Uint8Array, from = 0): number {
  const first = needle[0]!;
  const last = haystack.length - needle.length;
  for (let i = haystack.indexOf(first, from); i !== -1 && i <= last; i = haystack.indexOf(first, i + 1)) {
    let j = 1;
    while (j < needle.length && haystack[i + j] === needle[j]) j++;
    if (j === needle.length) return i;
  }
  return -1;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length === 0) return b;
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

/** Pulls chunks from the body on demand and keeps what has not been consumed. */
class Buffered {
  private reader: ReadableStreamDefaultReader<Uint8Array>;
  buffer: Uint8Array = new Uint8Array(0);
  done = false;

  constructor(body: ReadableStream<Uint8Array>) {
    this.reader = body.getReader();
  }

  /** Reads one more chunk; false at the end of the body. */
  async more(): Promise<boolean> {
    if (this.done) return false;
    const { value, done } = await this.reader.read();
    if (done) {
      this.done = true;
      return false;
    }
    if (value.length > 0) this.buffer = concat(this.buffer, value);
    return true;
  }

  /** Ensures at least `length` buffered bytes, or throws at the end of the body. */
  async need(length: number): Promise<void> {
    while (this.buffer.length < length) if (!(await this.more())) throw new MultipartError("the form ends early");
  }

  /** The bytes before `needle` (consumed along with it), looking no further than `limit` bytes. */
  async until(needle: Uint8Array, limit: number, what: string): Promise<Uint8Array> {
    for (;;) {
      const at = indexOf(this.buffer, needle);
      if (at !== -1) {
        if (at > limit) throw new MultipartError(`${what} is too long`);
        const before = this.buffer.slice(0, at);
        this.buffer = this.buffer.subarray(at + needle.length);
        return before;
      }
      if (this.buffer.length > limit + needle.length) throw new MultipartError(`${what} is too long`);
      if (!(await this.more())) throw new MultipartError("the form ends early");
    }
  }

  skip(length: number): void {
    this.buffer = this.buffer.subarray(length);
  }

  cancel(): Promise<void> {
    return this.reader.cancel().catch(() => undefined);
  }
}

interface PartHeaders {
  name: string;
  filename: string | null;
}

function parsePartHeaders(block: Uint8Array): PartHeaders {
  let name: string | null = null;
  let filename: string | null = null;
  for (const line of decoder.decode(block).split("\r\n")) {
    const colon = line.indexOf(":");
    if (colon <= 0) throw new MultipartError("a part header is malformed");
    if (line.slice(0, colon).trim().toLowerCase() !== "content-disposition") continue;
    const value = line.slice(colon + 1);
    if (!/^\s*form-data\s*(;|$)/i.test(value)) throw new MultipartError("a part is not form-data");
    name = /;\s*name="([^"]*)"/i.exec(value)?.[1] ?? null;
    filename = /;\s*filename="([^"]*)"/i.exec(value)?.[1] ?? null;
  }
  if (name === null) throw new MultipartError("a part has no name");
  return { name, filename };
}

export interface FormWithFile {
  /** The text fields that came before the file. */
  fields: Map<string, string>;
  /** The file's bytes; errors if the form is cut short or another part follows the file. */
  file: ReadableStream<Uint8Array>;
  /** Stops reading the request body (when the upload is refused before the file is consumed). */
  cancel(): Promise<void>;
}

/**
 * Reads the fields up to the part named `fileField` and returns them with that part's content as
 * a stream. The file must be the last part: the stream errors when anything but the closing
 * delimiter follows it, so a consumer that waits for the stream's end has seen a complete form.
 */
export async function readFormUntilFile(body: ReadableStream<Uint8Array>, boundary: string, fileField = "file"): Promise<FormWithFile> {
  const input = new Buffered(body);
  try {
    const dashBoundary = encoder.encode(`--${boundary}`);
    const delimiter = encoder.encode(`\r\n--${boundary}`);
    await input.until(dashBoundary, LIMITS.preamble, "the preamble");
    const fields = new Map<string, string>();
    for (;;) {
      await input.need(2);
      if (input.buffer[0] === 45 && input.buffer[1] === 45) throw new MultipartError(`the form has no part named ${fileField}`);
      if (input.buffer[0] !== CRLF[0] || input.buffer[1] !== CRLF[1]) throw new MultipartError("a delimiter is malformed");
      input.skip(2);
      const headers = parsePartHeaders(await input.until(HEADER_END, LIMITS.headers, "a part's headers"));
      if (headers.name === fileField) return { fields, file: fileStream(input, delimiter), cancel: () => input.cancel() };
      if (fields.size >= LIMITS.fields) throw new MultipartError("the form has too many fields");
      if (fields.has(headers.name)) throw new MultipartError(`the field ${headers.name} is repeated`);
      fields.set(headers.name, decoder.decode(await input.until(delimiter, LIMITS.field, `the field ${headers.name}`)));
    }
  } catch (err) {
    await input.cancel();
    throw err;
  }
}

function fileStream(input: Buffered, delimiter: Uint8Array): ReadableStream<Uint8Array> {
  let finished = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        for (;;) {
          const at = indexOf(input.buffer, delimiter);
          if (at !== -1) {
            if (at > 0) controller.enqueue(input.buffer.subarray(0, at));
            input.skip(at + delimiter.length);
            // Only the closing delimiter may follow the file.
            await input.need(2);
            if (input.buffer[0] !== 45 || input.buffer[1] !== 45) throw new MultipartError("the file must be the last part of the form");
            finished = true;
            await input.cancel();
            controller.close();
            return;
          }
          // Everything but a possible start of the delimiter can go on.
          const safe = input.buffer.length - (delimiter.length - 1);
          if (safe > 0) {
            controller.enqueue(input.buffer.subarray(0, safe));
            input.skip(safe);
            return;
          }
          if (!(await input.more())) throw new MultipartError("the form ends before the file's closing delimiter");
        }
      } catch (err) {
        await input.cancel();
        controller.error(err);
      }
    },
    async cancel() {
      if (!finished) await input.cancel();
    },
  });
}
