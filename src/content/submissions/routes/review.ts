import { createArea } from "../../../core/http/area";

/** The curators' side: the worksheet, the attempt history, review and reopen. */
export const reviewRoutesPart = createArea();
