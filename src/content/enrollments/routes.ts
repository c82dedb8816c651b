import { createArea } from "../../core/http/area";

export const enrollmentRoutes = createArea();
