import { createArea } from "../../../core/http/area";

export const studentsRoutesPart = createArea();
