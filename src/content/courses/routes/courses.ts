import { createArea } from "../../../core/http/area";

export const courseRoutes = createArea();
