import { createArea } from "../../../core/http/area";

export const lessonRoutes = createArea();
