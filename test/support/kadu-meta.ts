/** The `_meta` keys Kadu adds to an execution's `notifications/resources/updated`: its status and step count. */
export const STATUS = 'com.kobana.kadu/status';
export const STEPS = 'com.kobana.kadu/steps';
