import { createArea } from "../../../core/http/area";

/** The groups an assignment is set for. */
export const groupTargetRoutesPart = createArea();
