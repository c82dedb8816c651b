import { expect, TestRunner } from "vitest";
import { SELF } from "cloudflare:test";
import { contractEndpoint, pairKey } from "../contract/contract";

export interface ApiCall {
  method?: string;
  body?: unknown;
  /** Raw body text (malformed JSON and the like); wins over `body`. */
  raw?: string;
  token?: string;
  tenant?: string;
  headers?: Record<string, string>;
}

export interface ApiResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
  /** What was called, so a failure can be matched to its contract endpoint. */
  request: { method: string; path: string };
}

/** Calls the Worker over HTTP (inside workerd) and parses the JSON body. */
export async function api<T = any>(path: string, call: ApiCall = {}): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...call.headers };
  if (call.token) headers.authorization = `Bearer ${call.token}`;
  if (call.tenant) headers["x-tenant-subdomain"] = call.tenant;
  let body: string | undefined;
  if (call.raw !== undefined) body = call.raw;
  else if (call.body !== undefined) body = JSON.stringify(call.body);
  if (body !== undefined && !Object.keys(headers).some((name) => name.toLowerCase() === "content-type")) {
    headers["content-type"] = "application/json";
  }
  const method = (call.method ?? (body === undefined ? "GET" : "POST")).toUpperCase();
  const response = await SELF.fetch(`https://api.lms.localhost/api/v1${path}`, {
    method,
    headers,
    body,
  });
  return readResponse<T>(response, { method, path: `/api/v1${path}` });
}

/**
 * A fetch Response as an ApiResponse, for calls that cannot go through `api()` (another Host,
 * `app.request` with a modified env); `request` names the call so `failure()` can match it.
 */
export async function readResponse<T = any>(response: Response, request: { method: string; path: string }): Promise<ApiResponse<T>> {
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    // non-JSON bodies (the docs page) stay text
  }
  return { status: response.status, body: parsed as T, headers: response.headers, request: { method: request.method.toUpperCase(), path: request.path } };
}

/**
 * Asserts the whole failure envelope (`success: false`, a string `error`, a non-empty `message`,
 * the request id) and returns `{status, error}` for the caller to compare with the contract.
 * The pair is recorded on the running test against its contract endpoint; the coverage reporter
 * counts the pairs of passing tests, so a pair is covered only where the test also asserted it.
 */
export function failure(response: ApiResponse) {
  const body = response.body as Record<string, unknown> | null;
  expect(body, `${response.request.method} ${response.request.path}: failure envelope`).toMatchObject({
    success: false,
    error: expect.any(String),
    message: expect.stringMatching(/\S/),
    request_id: expect.any(String),
  });
  const error = body?.error as string | undefined;
  record(response, error);
  return { status: response.status, error };
}

function record(response: ApiResponse, error: string | undefined): void {
  const endpoint = contractEndpoint(response.request.method, response.request.path);
  const test = TestRunner.getCurrentTest();
  if (!endpoint || !test || error === undefined) return;
  const recorded = (test.meta.contractFailures ??= []);
  const key = pairKey(endpoint, response.status, error);
  if (!recorded.includes(key)) recorded.push(key);
}
