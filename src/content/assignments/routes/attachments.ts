import { createArea } from "../../../core/http/area";

/** Files staff attach to an assignment, and their download links. */
export const attachmentRoutesPart = createArea();
