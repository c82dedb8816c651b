import { createArea } from "../http/area";

export const tenantsRoutes = createArea();
