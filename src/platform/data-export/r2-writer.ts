/**
 * Writes one R2 object from text handed over piece by piece, holding at most one part in memory
 * (docs/decisions/data-export.md, "Streaming into R2"). R2 needs the length of a plain put up
 * front and, for a multipart upload, parts of one size (at least 5 MiB) but the last: so bytes
 * are gathered to a part, each full part is uploaded as it fills, and a document smaller than
 * one part is stored with a single put.
 */
export const PART_BYTES = 5 * 1024 * 1024;

const encoder = new TextEncoder();

export class R2ObjectWriter {
  private pending: Uint8Array[] = [];
  private pendingBytes = 0;
  private upload: R2MultipartUpload | null = null;
  private readonly parts: R2UploadedPart[] = [];
  /** Bytes written so far. */
  size = 0;

  constructor(
    private readonly bucket: R2Bucket,
    private readonly key: string,
    private readonly contentType: string,
  ) {}

  async write(text: string): Promise<void> {
    if (text.length === 0) return;
    const bytes = encoder.encode(text);
    this.pending.push(bytes);
    this.pendingBytes += bytes.byteLength;
    this.size += bytes.byteLength;
    while (this.pendingBytes >= PART_BYTES) await this.uploadPart(this.take(PART_BYTES));
  }

  /** Stores what is left and finishes the object; answers its size in bytes. */
  async close(): Promise<number> {
    if (!this.upload) {
      await this.bucket.put(this.key, this.take(this.pendingBytes), { httpMetadata: { contentType: this.contentType } });
      return this.size;
    }
    if (this.pendingBytes > 0) await this.uploadPart(this.take(this.pendingBytes));
    await this.upload.complete(this.parts);
    return this.size;
  }

  /** Drops a half-written multipart upload (a put writes nothing until it is whole). */
  async abort(): Promise<void> {
    this.pending = [];
    this.pendingBytes = 0;
    if (this.upload) await this.upload.abort().catch(() => undefined);
  }

  private async uploadPart(bytes: Uint8Array): Promise<void> {
    this.upload ??= await this.bucket.createMultipartUpload(this.key, { httpMetadata: { contentType: this.contentType } });
    this.parts.push(await this.upload.uploadPart(this.parts.length + 1, bytes));
  }

  /** The first `count` pending bytes as one array; the rest stays pending. */
  private take(count: number): Uint8Array {
    const out = new Uint8Array(count);
    let filled = 0;
    while (filled < count) {
      const head = this.pending[0]!;
      const used = Math.min(head.byteLength, count - filled);
      out.set(head.subarray(0, used), filled);
      filled += used;
      if (used === head.byteLength) this.pending.shift();
      else this.pending[0] = head.subarray(used);
    }
    this.pendingBytes -= count;
    return out;
  }
}
