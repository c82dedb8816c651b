import { createArea } from "../../../core/http/area";

export const sectionRoutesPart = createArea();
