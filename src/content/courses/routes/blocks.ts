import { createArea } from "../../../core/http/area";

export const blockRoutes = createArea();
