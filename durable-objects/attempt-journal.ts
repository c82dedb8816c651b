import { DurableObject } from "cloudflare:workers";
import type { Env } from "../src/core/env";

/**
 * One instance per quiz or exam attempt in progress (named by the attempt id): the attempt's
 * clock, its answer journal and an alarm at `deadline_at`. Written by the attempts area
 * (src/content/attempts); see docs/decisions.md, Quiz attempts.
 */
export class AttemptJournal extends DurableObject<Env> {}
