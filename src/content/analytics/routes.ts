import { createArea } from "../../core/http/area";

/** GET /analytics/curators. */
export const analyticsRoutes = createArea();
