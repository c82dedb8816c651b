import { createArea } from "../../../core/http/area";

export const gradingRoutesPart = createArea();
