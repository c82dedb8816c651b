import { createArea } from "../../../core/http/area";

/** A student's submission: create-or-return the draft (JSON or files), edit it, submit it. */
export const draftRoutesPart = createArea();
