import type { FetchFn, MailProvider, SendResult } from "./types";

const TIMEOUT_MS = 10_000;
const MAX_ERROR_CHARS = 300;

/**
 * Resend's HTTP API (POST /emails). The outbox id is the `Idempotency-Key`: Resend answers a
 * repeated key within 24 hours with the first response and sends nothing, so a retry after a lost
 * response or a timeout cannot deliver twice.
 */
export function resendProvider(options: { apiKey: string; apiUrl: string; fetch: FetchFn }): MailProvider {
  return {
    name: "resend",
    async send(email): Promise<SendResult> {
      let response: Response;
      try {
        response = await options.fetch(options.apiUrl, {
          method: "POST",
          headers: {
            authorization: `Bearer ${options.apiKey}`,
            "content-type": "application/json",
            "idempotency-key": email.id,
          },
          body: JSON.stringify({ from: email.from, to: email.to, subject: email.subject, text: email.text, html: email.html }),
          signal: AbortSignal.timeout(TIMEOUT_MS),
        });
      } catch (err) {
        return { ok: false, retryable: true, error: `resend: request failed: ${String(err).slice(0, MAX_ERROR_CHARS)}` };
      }

      if (response.ok) {
        // Accepted upstream: the email is out even if the body is unreadable, so this never retries.
        const body = (await response.json().catch(() => null)) as { id?: unknown } | null;
        return { ok: true, providerMessageId: typeof body?.id === "string" ? body.id : null };
      }

      const detail = await response.text().catch(() => "");
      const error = `resend: HTTP ${response.status} ${errorName(detail)}`.trim();
      // 409: a request with the same key is still in flight; 408/429/5xx: try again later.
      const retryable = response.status === 408 || response.status === 409 || response.status === 429 || response.status >= 500;
      const retryAfter = Number(response.headers.get("retry-after"));
      return {
        ok: false,
        retryable,
        error,
        ...(retryable && Number.isFinite(retryAfter) && retryAfter > 0 ? { retryAfterSeconds: Math.ceil(retryAfter) } : {}),
      };
    },
  };
}

/** Resend's error JSON is `{statusCode, name, message}`; keep the name and message, bounded. */
function errorName(detail: string): string {
  try {
    const parsed = JSON.parse(detail) as { name?: unknown; message?: unknown };
    return [parsed.name, parsed.message]
      .filter((part) => typeof part === "string")
      .join(": ")
      .slice(0, MAX_ERROR_CHARS);
  } catch {
    return detail.slice(0, MAX_ERROR_CHARS);
  }
}
