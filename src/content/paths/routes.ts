import { createArea } from "../../core/http/area";

export const pathRoutes = createArea();
