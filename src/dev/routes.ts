import { createArea } from "../http/area";

/** Local-development helpers (the dev mailbox), mounted only when DEV_MAILBOX=true. */
export const devRoutes = createArea();
