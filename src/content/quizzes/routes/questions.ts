import { createArea } from "../../../core/http/area";

export const questionRoutesPart = createArea();
