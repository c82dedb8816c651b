import { createArea } from "../../../core/http/area";

export const examRoutesPart = createArea();
