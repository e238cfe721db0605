/** Upload limits besides config.uploadMaxBytes (per file), named and documented (README: Media). */

/** File parts one multipart request may carry; more → 413. */
export const MAX_FILES_PER_REQUEST = 10;
/** Non-file parts (`data`, `updateDto`) one request may carry; more → 413. */
export const MAX_FORM_FIELDS = 4;
/** Files a multiple media field may hold in all; more → 422. */
export const MAX_FILES_PER_FIELD = 100;
