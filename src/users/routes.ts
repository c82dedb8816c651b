import { createArea } from "../http/area";

export const usersRoutes = createArea();
