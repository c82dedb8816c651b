import type { Config } from "../../src/core/env";
import type { PushProvider } from "../../src/platform/notifications/delivery";
import type { FetchFn } from "../providers/types";
import { fcmProvider } from "./fcm";
import { logPushProvider } from "./log";

/** The provider PUSH_PROVIDER names. FCM without a usable service account fails each push with the reason. */
export function pushProvider(config: Config, fetchFn: FetchFn): PushProvider {
  if (config.push.provider === "log") return logPushProvider();
  const { serviceAccount, problem, apiUrl } = config.push;
  if (!serviceAccount) {
    const error = problem ?? "config: FCM service account missing";
    return { name: "fcm", send: async () => ({ ok: false, retryable: false, disableDevice: false, error }) };
  }
  return fcmProvider({ serviceAccount, apiUrl, fetch: fetchFn });
}
