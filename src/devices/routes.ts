import { createArea } from "../http/area";

export const devicesRoutes = createArea();
