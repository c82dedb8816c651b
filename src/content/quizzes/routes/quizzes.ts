import { createArea } from "../../../core/http/area";

export const quizRoutesPart = createArea();
