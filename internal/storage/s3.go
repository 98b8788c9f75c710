package storage

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// maxSinglePutSize is the largest object S3 accepts in one PUT request.
//
// minio-go's default for a known size above 16 MiB is a multipart upload with
// 16 MiB parts, and unless the reader is an io.ReaderAt (such as *os.File) it
// reads each part into a 16 MiB buffer first. A single PUT instead streams
// the reader straight into the request body (signed in 64 KiB chunks), so
// memory stays small whatever the file size.
const maxSinglePutSize = 5 << 30

// S3Config configures an S3-compatible object store.
type S3Config struct {
	// Endpoint is a URL ("http://127.0.0.1:9000", "https://s3.eu-west-1.amazonaws.com")
	// or a bare host[:port]. A URL's scheme overrides Secure.
	Endpoint string
	// Region may be empty, in which case it is looked up from the bucket.
	Region          string
	Bucket          string
	AccessKeyID     string
	SecretAccessKey string
	// UsePathStyle addresses buckets as endpoint/bucket instead of
	// bucket.endpoint, as MinIO and most self-hosted servers need.
	UsePathStyle bool
	// Secure selects HTTPS for a bare host[:port] Endpoint.
	Secure bool
}

// S3 is a Store in a bucket of an S3-compatible object store.
type S3 struct {
	client *minio.Client
	bucket string
}

var _ Store = (*S3)(nil)

// NewS3 connects to the object store and checks that the bucket exists.
func NewS3(ctx context.Context, cfg S3Config) (*S3, error) {
	host, secure, err := parseEndpoint(cfg.Endpoint, cfg.Secure)
	if err != nil {
		return nil, err
	}
	if cfg.Bucket == "" {
		return nil, errors.New("s3 store: empty bucket name")
	}
	lookup := minio.BucketLookupAuto
	if cfg.UsePathStyle {
		lookup = minio.BucketLookupPath
	}
	client, err := minio.New(host, &minio.Options{
		Creds:        credentials.NewStaticV4(cfg.AccessKeyID, cfg.SecretAccessKey, ""),
		Secure:       secure,
		Region:       cfg.Region,
		BucketLookup: lookup,
	})
	if err != nil {
		return nil, fmt.Errorf("s3 store %s: %w", host, err)
	}
	ok, err := client.BucketExists(ctx, cfg.Bucket)
	if err != nil {
		return nil, fmt.Errorf("s3 store %s: check bucket %q: %w", host, cfg.Bucket, err)
	}
	if !ok {
		return nil, fmt.Errorf("s3 store %s: bucket %q does not exist", host, cfg.Bucket)
	}
	return &S3{client: client, bucket: cfg.Bucket}, nil
}

// parseEndpoint turns Endpoint into the host[:port] minio-go wants and
// whether to use HTTPS. Errors never quote the endpoint, as a URL could
// carry credentials.
func parseEndpoint(endpoint string, secure bool) (host string, isSecure bool, err error) {
	if endpoint == "" {
		return "", false, errors.New("s3 store: empty endpoint")
	}
	if !strings.Contains(endpoint, "://") {
		return endpoint, secure, nil
	}
	u, err := url.Parse(endpoint)
	if err != nil {
		return "", false, errors.New("s3 store: endpoint is not a valid URL")
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return "", false, fmt.Errorf("s3 store: endpoint scheme %q is not http or https", u.Scheme)
	case u.User != nil:
		return "", false, errors.New("s3 store: endpoint URL must not contain credentials")
	case u.Host == "":
		return "", false, errors.New("s3 store: endpoint URL has no host")
	case (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "":
		return "", false, errors.New("s3 store: endpoint URL must not have a path, query or fragment")
	}
	return u.Host, u.Scheme == "https", nil
}

// Disk returns "s3".
func (s *S3) Disk() string { return "s3" }

// Put uploads the object in a single streamed PUT (see maxSinglePutSize).
// S3 only makes an object visible once its upload completes, so a failed Put
// leaves nothing behind. Bytes of r beyond size are not read.
func (s *S3) Put(ctx context.Context, path string, r io.Reader, size int64, contentType string) error {
	if err := checkPath(path); err != nil {
		return err
	}
	if size < 0 {
		return fmt.Errorf("s3 put %s: negative size %d", path, size)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("s3 put %s: %w", path, err)
	}
	opts := minio.PutObjectOptions{
		ContentType: contentType,
		// Above S3's single PUT limit minio-go falls back to multipart
		// with its default part size (one part-sized buffer at a time).
		DisableMultipart: size <= maxSinglePutSize,
		// Over plain HTTP minio-go signs the body in aws-chunked streaming
		// mode; for an empty body it then sends "Transfer-Encoding: chunked"
		// without a Content-Length, which S3 and gofakes3 reject with
		// MissingContentLength. An unsigned empty payload goes out with
		// "Content-Length: 0" instead, and there is no content to sign.
		DisableContentSha256: size == 0,
	}
	if _, err := s.client.PutObject(ctx, s.bucket, path, r, size, opts); err != nil {
		return fmt.Errorf("s3 put %s: %w", path, err)
	}
	return nil
}

// Open checks that the object exists (one HEAD request) and returns a
// *minio.Object. That does not download the object: each Read after a Seek
// starts a GET with a Range from the new offset, and data is streamed from
// the response as it is read. The file is tied to ctx: once ctx is
// cancelled, reads fail, so open it with the context of the request that
// serves it.
func (s *S3) Open(ctx context.Context, path string) (File, error) {
	if err := checkPath(path); err != nil {
		return nil, err
	}
	obj, err := s.client.GetObject(ctx, s.bucket, path, minio.GetObjectOptions{})
	if err != nil {
		return nil, fmt.Errorf("s3 open %s: %w", path, s3Err(err))
	}
	// GetObject is lazy; Stat makes the first request so a missing object
	// is reported by Open and not by the first Read.
	if _, err := obj.Stat(); err != nil {
		_ = obj.Close()
		return nil, fmt.Errorf("s3 open %s: %w", path, s3Err(err))
	}
	return obj, nil
}

// Delete removes the object; S3 reports success for a missing key.
func (s *S3) Delete(ctx context.Context, path string) error {
	if err := checkPath(path); err != nil {
		return err
	}
	err := s.client.RemoveObject(ctx, s.bucket, path, minio.RemoveObjectOptions{})
	if err != nil && !errors.Is(s3Err(err), ErrNotExist) {
		return fmt.Errorf("s3 delete %s: %w", path, err)
	}
	return nil
}

// Exists reports whether the object exists.
func (s *S3) Exists(ctx context.Context, path string) (bool, error) {
	if err := checkPath(path); err != nil {
		return false, err
	}
	_, err := s.client.StatObject(ctx, s.bucket, path, minio.StatObjectOptions{})
	if err != nil {
		if err = s3Err(err); errors.Is(err, ErrNotExist) {
			return false, nil
		}
		return false, fmt.Errorf("s3 exists %s: %w", path, err)
	}
	return true, nil
}

// List lists the objects under folder+"/", without descending into
// deeper prefixes.
func (s *S3) List(ctx context.Context, folder string) ([]string, error) {
	if err := checkPath(folder); err != nil {
		return nil, err
	}
	var paths []string
	for obj := range s.client.ListObjects(ctx, s.bucket, minio.ListObjectsOptions{Prefix: folder + "/"}) {
		if obj.Err != nil {
			return nil, fmt.Errorf("s3 list %s: %w", folder, obj.Err)
		}
		if strings.HasSuffix(obj.Key, "/") { // a deeper prefix, not an object
			continue
		}
		paths = append(paths, obj.Key)
	}
	return paths, nil
}

// s3Err maps a missing key to ErrNotExist. A missing bucket is left as it
// is: that is a configuration error, not a missing file.
func s3Err(err error) error {
	if minio.ToErrorResponse(err).Code == minio.NoSuchKey {
		return fmt.Errorf("%w (%w)", ErrNotExist, err)
	}
	return err
}
