package model

// Redacted is what Spark writes in place of a secret value
// (Utils.REDACTION_REPLACEMENT_TEXT).
const Redacted = "*********(redacted)"
