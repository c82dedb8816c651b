import { createArea } from "../../../core/http/area";

export const adjustmentsRoutesPart = createArea();
