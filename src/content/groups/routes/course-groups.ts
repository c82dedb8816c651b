import { createArea } from "../../../core/http/area";

export const courseGroupsRoutes = createArea();
