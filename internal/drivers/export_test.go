package drivers

// StatusRanges are the document_status filter's ranges, for the external
// tests.
var StatusRanges = statusRanges
