import { createArea } from "../http/area";

export const billingRoutes = createArea();
