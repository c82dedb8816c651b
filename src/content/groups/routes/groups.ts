import { createArea } from "../../../core/http/area";

export const groupsRoutes = createArea();
