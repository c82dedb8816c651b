/**
 * The bench's worker (`npm run bench` starts it as a child process): the local runtime `wrangler dev`
 * runs (wrangler's own DevEnv: the same bundle, Miniflare, bindings, .dev.vars and storage), with
 * the bench's requests sent to the worker's own address, bypassing wrangler's dev proxy.
 *
 * Why (docs/decisions/heavy-reads-bench.md, "The bench without the dev proxy"): `wrangler dev` puts a
 * second workerd process in front of the worker, whose one Durable Object queues and forwards every
 * request so a reload can hold them. Production has no such hop; on the bench's 2-core host it added
 * 2.5-3 ms to every request at c=1 (health 8.70 → 6.13 ms) and passed every request at c=32 through
 * that one object. DevEnv still starts the proxy (on `<proxy port>`); nothing is sent to it.
 *
 * Usage (spawned with an IPC channel): serve.mjs <persist-to dir> <proxy port> [NAME=value ...]
 * (extra plain-text vars). Sends `{url: "<worker address>"}` to its parent once the runtime has
 * loaded the worker; a failure to start is printed and exits 1. Runs until it is killed:
 * Miniflare's own exit hook stops workerd.
 */
import { unstable_DevEnv } from "wrangler";

const [persist, port, ...vars] = process.argv.slice(2);
if (!process.send || !persist || !port || vars.some((pair) => !/^[A-Z0-9_]+=/.test(pair))) {
  throw new Error("usage (with an IPC channel): serve.mjs <persist-to dir> <proxy port> [NAME=value ...]");
}
const bindings = Object.fromEntries(
  vars.map((pair) => {
    const at = pair.indexOf("=");
    return [pair.slice(0, at), { type: "plain_text", value: pair.slice(at + 1) }];
  }),
);

let announced = false;
/** DevEnv logs its errors only at debug level: before the address is out they end the start, loudly. */
function failure(event) {
  console.error(event?.reason ?? event?.message ?? event, event?.cause ?? "");
  if (!announced) process.exit(1);
}

const devEnv = new unstable_DevEnv();
devEnv.on("error", failure);
devEnv.on("buildFailed", failure);
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
const url = await workerUrl;
announced = true;
process.send({ url });
