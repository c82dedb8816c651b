import { createArea } from "../../../core/http/area";

/** Assignments: list, progress, detail, create, change, delete. */
export const assignmentRoutesPart = createArea();
