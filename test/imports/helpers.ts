import { app } from "../../src/app";
import { readResponse, type ApiResponse } from "../helpers/http";
import { as, type Member } from "../helpers/users";

/** Uploads CSV text as the member (Content-Type text/csv unless told). */
export function upload(member: Member, kind: string, csv: string | Uint8Array, contentType = "text/csv; charset=utf-8") {
  const raw = typeof csv === "string" ? csv : new TextDecoder().decode(csv);
  return as(member, `/t/imports?kind=${kind}`, { method: "POST", raw, headers: { "content-type": contentType } });
}

export const applyPlan = (member: Member, id: string, body: unknown) => as(member, `/t/imports/${id}/apply`, { method: "POST", body });

/** An upload through the app with the school's shard replaced by `db` (a counter, a failing wrapper). */
export async function uploadWithD1(db: D1Database, env: Parameters<typeof app.request>[2], member: Member, kind: string, csv: string): Promise<ApiResponse> {
  const response = await app.request(
    `https://api.lms.localhost/api/v1/t/imports?kind=${kind}`,
    { method: "POST", headers: { authorization: `Bearer ${member.token}`, "x-tenant-subdomain": member.subdomain, "content-type": "text/csv" }, body: csv },
    env,
  );
  void db;
  return readResponse(response, { method: "POST", path: "/api/v1/t/imports" });
}

/** A users file of `count` new students. */
export function studentsCsv(count: number, prefix = "s"): string {
  const lines = ["email,first_name,last_name"];
  for (let index = 1; index <= count; index += 1) lines.push(`${prefix}${index}@import.test,Name${index},Surname${index}`);
  return lines.join("\n") + "\n";
}
