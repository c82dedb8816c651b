/**
 * The demo's personal-data export, built the real way (docs/decisions/data-export.md, "Demo data"):
 * an export's file is what the Worker's queue writes from the school's rows, so no seed row can
 * stand in for one. Once `npm run dev` has the server answering, Lola (student3: a completed
 * course, its certificate, points, a group, an individual curator) asks for her own export over
 * HTTP and the local queue builds it. One export per person per 24 hours: a restart within a day
 * is answered 429 and the export asked for earlier stays.
 */
import { DEMO, DEMO_PASSWORD } from "../seed/demo.mjs";

const POLL_MS = 500;
const WAIT_MS = 60_000;

async function call(baseUrl, path, { method = "GET", token, body } = {}) {
  const headers = { "x-tenant-subdomain": DEMO.subdomain };
  if (token) headers.authorization = `Bearer ${token}`;
  if (body) headers["content-type"] = "application/json";
  const response = await fetch(`${baseUrl}/api/v1${path}`, { method, headers, body: body && JSON.stringify(body) });
  return { status: response.status, headers: response.headers, json: await response.json().catch(() => null) };
}

/** Asks for the demo student's export and waits for the queue to build it; returns the line to print. */
export async function requestDemoExport(baseUrl) {
  const person = DEMO.students[2];
  const login = await call(baseUrl, "/auth/login", {
    method: "POST",
    // A fixed installation: every `npm run dev` signs in on the same demo device.
    body: { email: person.email, password: DEMO_PASSWORD, subdomain: DEMO.subdomain, device_platform: "web", installation_id: "demo-export-script" },
  });
  if (login.status !== 200) return `Demo export: ${person.email} could not sign in (${login.status} ${login.json?.error ?? ""}).`;
  const token = login.json.data.token;
  const asked = await call(baseUrl, "/t/me/data-export", { method: "POST", token });
  if (asked.status === 429) {
    return `Demo export: ${person.email} asked within the last 24 hours; that export stays (the next may start in ${asked.headers.get("retry-after")} s).`;
  }
  if (asked.status !== 202) return `Demo export: the request answered ${asked.status} ${asked.json?.error ?? ""}.`;
  const id = asked.json.data.id;
  const deadline = Date.now() + WAIT_MS;
  let read;
  do {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    read = await call(baseUrl, `/t/data-exports/${id}`, { token });
  } while (read.status === 200 && read.json.data.status === "pending" && Date.now() < deadline);
  const status = read.status === 200 ? read.json.data.status : `${read.status}`;
  return (
    `Demo export: ${person.email}'s personal-data export ${id} is ${status}` +
    (status === "ready" ? ` (${read.json.data.size_bytes} bytes); GET /api/v1/t/data-exports/${id} as her or the admin gives its download link.` : ".")
  );
}
