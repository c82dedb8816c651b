import { DurableObject } from "cloudflare:workers";
import type { Env } from "../src/core/env";

/**
 * One instance per exam attempt (named by the attempt id): the attempt's deadline, the warning
 * alarm 5 minutes before it and the alarm that finalizes the attempt. Written by the exams area
 * (src/content/exams); see docs/decisions.md, Exams.
 */
export class ExamAttemptTimer extends DurableObject<Env> {}
