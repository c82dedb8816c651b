/**
 * The note `npm run dev` leaves about the server it runs (URL, --persist-to, its pid), so
 * `npm run tour` finds the real port without being told. A note whose process is gone is ignored.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { ROOT } from "./project.mjs";

export const DEV_SERVER_FILE = path.join(ROOT, ".wrangler", "dev-server.json");

export function writeDevServer({ url, persistTo }) {
  mkdirSync(path.dirname(DEV_SERVER_FILE), { recursive: true });
  writeFileSync(DEV_SERVER_FILE, `${JSON.stringify({ url, persist_to: persistTo ?? null, pid: process.pid })}\n`);
}

/** Removes the note if it is still this process's (a newer `npm run dev` may have replaced it). */
export function clearDevServer() {
  try {
    if (JSON.parse(readFileSync(DEV_SERVER_FILE, "utf8")).pid === process.pid) rmSync(DEV_SERVER_FILE);
  } catch {
    // no note, or not ours: nothing to clear
  }
}

/** `{ url, persistTo }` of a running `npm run dev`, or null. */
export function readDevServer() {
  let note;
  try {
    note = JSON.parse(readFileSync(DEV_SERVER_FILE, "utf8"));
  } catch {
    return null;
  }
  if (typeof note?.url !== "string" || !Number.isInteger(note.pid)) return null;
  try {
    process.kill(note.pid, 0);
  } catch (err) {
    if (err.code === "ESRCH") return null;
  }
  return { url: note.url, persistTo: note.persist_to ?? undefined };
}
