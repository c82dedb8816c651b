import { createArea } from "../../../core/http/area";

export const attemptRoutesPart = createArea();
