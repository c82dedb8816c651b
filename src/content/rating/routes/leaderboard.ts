import { createArea } from "../../../core/http/area";

export const leaderboardRoutesPart = createArea();
