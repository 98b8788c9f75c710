package drivers

// StatusRanges are the document_status filter's ranges, for the external
// tests.
var StatusRanges = statusRanges

// RequiredDocuments is the compliance report's read of a batch's required
// documents, for the external tests.
var RequiredDocuments = (*Service).requiredDocuments
