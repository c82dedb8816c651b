import { createExecutionContext, createMessageBatch, env, getQueueResult } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { QueueMessage } from "../../src/core/env";
import { handleMediaMetadataBatch, MEDIA_METADATA_QUEUE, readMetadata } from "../../src/platform/media/metadata-consumer";
import { jobContext } from "../../src/contributors";
import { ebmlDuration } from "../../src/platform/media/metadata/ebml";
import { mp4Duration } from "../../src/platform/media/metadata/mp4";
import { pdfPageCount } from "../../src/platform/media/metadata/pdf";
import { blockReader, bytesReader, type RangeReader } from "../../src/platform/media/metadata/reader";
import { unknownId } from "../helpers/users";
import { assetRow, confirmedAsset, FIXTURES, getAsset, mediaSchool, storedImage } from "./helpers";

/** A reader that counts its reads, to show the parsers read ranges, not whole files. */
function counting(bytes: Uint8Array): RangeReader & { reads: number; bytesRead: number } {
  const inner = bytesReader(bytes);
  const reader = {
    size: inner.size,
    reads: 0,
    bytesRead: 0,
    async read(offset: number, length: number) {
      reader.reads += 1;
      const out = await inner.read(offset, length);
      reader.bytesRead += out.length;
      return out;
    },
  };
  return reader;
}

async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  let value = await read();
  while (!done(value) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    value = await read();
  }
  return value;
}

describe("metadata parsers on real files", () => {
  it("counts the pages of a PDF with a classic xref table, with object streams, and linearized", async () => {
    expect(await pdfPageCount(bytesReader(FIXTURES.pdf))).toBe(3);
    expect(await pdfPageCount(bytesReader(FIXTURES.pdfObjectStreams))).toBe(3);
    expect(await pdfPageCount(bytesReader(FIXTURES.pdfLinearized))).toBe(3);
  });

  it("reads an MP4's duration with moov after or before the media data", async () => {
    expect(await mp4Duration(bytesReader(FIXTURES.mp4))).toBeCloseTo(3, 2);
    expect(await mp4Duration(bytesReader(FIXTURES.mp4Faststart))).toBeCloseTo(3, 2);
  });

  it("reads a WebM's duration from Segment/Info", async () => {
    expect(await ebmlDuration(bytesReader(FIXTURES.webm))).toBeCloseTo(2, 1);
  });

  it("reads headers by range: a large video padded after its moov costs a few small reads", async () => {
    const padded = new Uint8Array(FIXTURES.mp4Faststart.length + 8 * 1024 * 1024);
    padded.set(FIXTURES.mp4Faststart);
    // A trailing `free` box so the file stays well formed.
    const freeAt = FIXTURES.mp4Faststart.length;
    new DataView(padded.buffer).setUint32(freeAt, padded.length - freeAt);
    padded.set(new TextEncoder().encode("free"), freeAt + 4);
    const reader = counting(padded);
    expect(await mp4Duration(blockReader(reader))).toBeCloseTo(3, 2);
    expect(reader.bytesRead).toBeLessThan(256 * 1024);
  });

  it("leaves metadata unknown for unreadable or truncated files, never throwing", async () => {
    const garbage = new TextEncoder().encode("this is not a pdf or a video at all");
    expect(await readMetadata("pdf", "application/pdf", bytesReader(garbage))).toBeNull();
    expect(await readMetadata("pdf", "application/pdf", bytesReader(FIXTURES.pdf.subarray(0, 600)))).toBeNull();
    expect(await readMetadata("video", "video/mp4", bytesReader(garbage))).toBeNull();
    expect(await readMetadata("video", "video/mp4", bytesReader(FIXTURES.mp4.subarray(0, 2000)))).toBeNull();
    expect(await readMetadata("video", "video/webm", bytesReader(FIXTURES.webm.subarray(0, 20)))).toBeNull();
    expect(await readMetadata("video", "video/x-msvideo", bytesReader(FIXTURES.mp4))).toBeNull();
    expect(await readMetadata("image", "image/png", bytesReader(FIXTURES.png))).toBeNull();
  });

  it("rounds durations to whole seconds", async () => {
    expect(await readMetadata("video", "video/mp4", bytesReader(FIXTURES.mp4))).toEqual({ durationSeconds: 3 });
    expect(await readMetadata("video", "video/webm", bytesReader(FIXTURES.webm))).toEqual({ durationSeconds: 2 });
    expect(await readMetadata("pdf", "application/pdf", bytesReader(FIXTURES.pdfObjectStreams))).toEqual({ totalPages: 3 });
  });
});

describe("metadata after confirm, through the media queue", () => {
  it("fills total_pages of a pdf and duration_seconds of an mp4 and a webm shortly after confirm", async () => {
    const { student } = await mediaSchool();
    const pdf = await confirmedAsset(student, "pdf", FIXTURES.pdfObjectStreams);
    const mp4 = await confirmedAsset(student, "video", FIXTURES.mp4);
    const webm = await confirmedAsset(student, "video", FIXTURES.webm);
    expect([pdf.total_pages, mp4.duration_seconds, webm.duration_seconds]).toEqual([null, null, null]);
    expect((await waitFor(() => assetRow(pdf.id), (row) => row?.totalPages !== null))?.totalPages).toBe(3);
    expect((await waitFor(() => assetRow(mp4.id), (row) => row?.durationSeconds !== null))?.durationSeconds).toBe(3);
    expect((await waitFor(() => assetRow(webm.id), (row) => row?.durationSeconds !== null))?.durationSeconds).toBe(2);
    const read = await getAsset(student, pdf.id);
    expect(read.body.data).toMatchObject({ total_pages: 3, duration_seconds: null });
  });
});

describe("the media queue's consumer", () => {
  it("acknowledges malformed messages and unknown assets, fills a known asset, and retries when D1 fails", async () => {
    const { school } = await mediaSchool();
    // Stored without a confirm, so no queue message of its own races this test.
    const pdf = { id: await storedImage(school.id, { kind: "pdf", bytes: FIXTURES.pdf, mime: "application/pdf" }) };
    const messages = [
      { id: "m-bad", timestamp: new Date(), attempts: 1, body: { kind: "email", outbox_id: "x" } },
      { id: "m-unknown", timestamp: new Date(), attempts: 1, body: { kind: "media_metadata", tenant_id: school.id, asset_id: unknownId() } },
      { id: "m-pdf", timestamp: new Date(), attempts: 1, body: { kind: "media_metadata", tenant_id: school.id, asset_id: pdf.id } },
    ];
    const batch = createMessageBatch<QueueMessage>(MEDIA_METADATA_QUEUE, messages as never);
    const ctx = createExecutionContext();
    await handleMediaMetadataBatch(batch, jobContext(env));
    const result = await getQueueResult(batch, ctx);
    expect(result.explicitAcks.sort()).toEqual(["m-bad", "m-pdf", "m-unknown"]);
    expect(result.retryMessages).toEqual([]);
    expect((await assetRow(pdf.id))?.totalPages).toBe(3);

    const broken = { ...env, DB: { prepare: () => { throw new Error("D1 is unavailable"); } } as unknown as D1Database };
    const again = createMessageBatch<QueueMessage>(MEDIA_METADATA_QUEUE, [messages[2]] as never);
    await handleMediaMetadataBatch(again, jobContext(broken));
    expect((await getQueueResult(again, createExecutionContext())).retryMessages).toEqual([{ msgId: "m-pdf" }]);
  });
});
