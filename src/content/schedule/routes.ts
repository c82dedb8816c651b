import { createArea } from "../../core/http/area";

export const scheduleRoutes = createArea();
