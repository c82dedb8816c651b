import { createArea } from "../../../core/http/area";

export const membersRoutes = createArea();
