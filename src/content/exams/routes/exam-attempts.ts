import { createArea } from "../../../core/http/area";

export const examAttemptRoutesPart = createArea();
