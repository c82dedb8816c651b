/**
 * The bench's worker (`npm run bench` starts it as a child process): the local runtime `wrangler dev`
 * runs (wrangler's own DevEnv: the same bundle, Miniflare, bindings, .dev.vars and storage), but
 * answered at the worker's own address instead of through wrangler's dev proxy.
 *
 * Why (docs/decisions/heavy-reads.md, "The bench without the dev proxy"): `wrangler dev` puts a
 * second workerd process in front of the worker, whose one Durable Object queues and forwards every
 * request so a reload can hold them. Production has no such hop; on the bench's 2-core host it added
 * 2.5-3 ms to every request at c=1 (health 8.70 → 6.13 ms) and serialized every request at c=32.
 *
 * Usage: serve.mjs <persist-to dir> <proxy port> [NAME=value ...] (extra plain-text vars). Prints
 * one line `{"url": "<worker address>"}` when the worker answers; runs until it is killed.
 */
import { unstable_DevEnv } from "wrangler";

const [persist, port, ...vars] = process.argv.slice(2);
if (!persist || !port) throw new Error("usage: serve.mjs <persist-to> <port> [NAME=value ...]");
const bindings = Object.fromEntries(
  vars.map((pair) => {
    const at = pair.indexOf("=");
    return [pair.slice(0, at), { type: "plain_text", value: pair.slice(at + 1) }];
  }),
);

const devEnv = new unstable_DevEnv();
// The runtime announces the worker's own address with every (re)load; the dev proxy forwards to it.
const workerUrl = new Promise((resolve) =>
  devEnv.on("reloadComplete", ({ proxyData: { userWorkerUrl: u } }) => resolve(`${u.protocol}//${u.hostname}:${u.port}`)),
);
const worker = await devEnv.startWorker({
  config: "wrangler.toml",
  dev: { persist, server: { hostname: "127.0.0.1", port: Number(port) }, inspector: false, watch: false, logLevel: "warn" },
  bindings,
});
await worker.ready;
console.log(JSON.stringify({ url: await workerUrl }));
const stop = () => worker.dispose().finally(() => process.exit(0));
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
