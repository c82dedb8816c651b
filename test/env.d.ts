import type { D1Migration } from "cloudflare:test";
import type { Env as WorkerEnv } from "../src/core/env";

declare global {
  namespace Cloudflare {
    interface Env extends WorkerEnv {
      CONTROL_MIGRATIONS: D1Migration[];
      SCHOOL_MIGRATIONS: D1Migration[];
    }
  }
}
