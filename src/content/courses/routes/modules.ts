import { createArea } from "../../../core/http/area";

export const moduleRoutes = createArea();
