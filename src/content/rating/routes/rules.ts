import { createArea } from "../../../core/http/area";

export const rulesRoutesPart = createArea();
