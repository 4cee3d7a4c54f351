package deploy_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/macepc/macepc/cli"
	"github.com/macepc/macepc/systems/pingpong"
	"github.com/macepc/macepc/systems/randtree"
)

// asMacepc is set in the environment of a process that the test binary
// starts as macepc: TestMain then runs the command line, not the tests, so
// that run-local.sh runs real processes without building the binary.
const asMacepc = "MACEPC_DEPLOY_TEST_AS_MACEPC"

func TestMain(m *testing.M) {
	if os.Getenv(asMacepc) == "1" {
		os.Exit(cli.RunEnv(context.Background(), os.Getenv, os.Args[1:], os.Stdout, os.Stderr, randtree.System(), pingpong.System()))
	}
	os.Exit(m.Run())
}

// freeBase finds a port p on loopback with p, p+10, … p+10(n-1) free (a
// race with another process taking one makes the test fail, not pass).
func freeBase(t *testing.T, n int) int {
	t.Helper()
	for try := 0; try < 50; try++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		base := l.Addr().(*net.TCPAddr).Port
		l.Close()
		if base+10*n > 65535 {
			continue
		}
		ok := true
		for i := range n {
			l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", base+10*i))
			if err != nil {
				ok = false
				break
			}
			l.Close()
		}
		if ok {
			return base
		}
	}
	t.Fatal("no free ports")
	return 0
}

// run-local.sh starts N real processes on loopback, one node each, and
// replays their gathered traces: every event replays, with the stopping
// condition found by the replay.
func TestRealnetRunLocal(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "live")
	cmd := exec.Command("sh", "realnet/run-local.sh", "4")
	cmd.Env = append(os.Environ(), asMacepc+"=1", "MACEPC="+self, "OUT="+out, fmt.Sprintf("PORT=%d", freeBase(t, 4)), "DURATION=2")
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("run-local.sh: %v\n%s", err, b)
	}
	// 4 nodes, 2 pairs of 10 rounds: 40 sends. Broken-connection upcalls
	// may follow where one process ended before another.
	m := regexp.MustCompile(`pingpong/default, 4 nodes: replayed (\d+) of (\d+) events, 40 sends as recorded; the stopping condition holds from step \d+\n`).FindStringSubmatch(string(b))
	if m == nil || m[1] != m[2] {
		t.Errorf("run-local.sh printed:\n%s\nwant every event replayed, 40 sends and the stopping condition", b)
	}
	for i := range 4 {
		if _, err := os.Stat(filepath.Join(out, "run-000", fmt.Sprintf("node-%03d.jsonl", i))); err != nil {
			t.Error(err)
		}
	}
}

// The Kubernetes example: a headless Service and an Indexed Job whose
// pods find each other by the Service's DNS names, decoded strictly; then
// each pod's command, with its completion index, the peers' names mapped
// to loopback ports and /data to a directory, runs for real, and the
// gathered traces replay.
func TestRealnetKubernetes(t *testing.T) {
	const file = "realnet/kubernetes.yaml"
	docs := regexp.MustCompile(`(?m)^---\s*$`).Split(read(t, file), -1)
	if len(docs) != 2 {
		t.Fatalf("%s: %d documents, want a Service and a Job", file, len(docs))
	}
	var svc corev1.Service
	var job batchv1.Job
	if err := yaml.UnmarshalStrict([]byte(docs[0]), &svc); err != nil || svc.Kind != "Service" {
		t.Fatalf("%s: the first document is not a Service: %v", file, err)
	}
	if err := yaml.UnmarshalStrict([]byte(docs[1]), &job); err != nil || job.Kind != "Job" {
		t.Fatalf("%s: the second document is not a Job: %v", file, err)
	}
	spec := job.Spec
	pod := spec.Template.Spec
	if svc.Spec.ClusterIP != corev1.ClusterIPNone || !svc.Spec.PublishNotReadyAddresses || len(svc.Spec.Ports) != 1 {
		t.Fatalf("the Service must be headless, publish not-ready addresses and declare the node port: %+v", svc.Spec)
	}
	for k, v := range svc.Spec.Selector {
		if spec.Template.Labels[k] != v {
			t.Fatalf("the Service selects %s=%s, the pods are labelled %v", k, v, spec.Template.Labels)
		}
	}
	if pod.Hostname != "" {
		t.Fatalf("the pods' hostname is set (%s): an Indexed Job names pod I %s-I, which --peers relies on", pod.Hostname, job.Name)
	}
	if spec.CompletionMode == nil || *spec.CompletionMode != batchv1.IndexedCompletion || spec.Completions == nil || spec.Parallelism == nil ||
		*spec.Parallelism != *spec.Completions || pod.Subdomain != svc.Name {
		t.Fatalf("the Job must be Indexed, run every completion at once and put its pods under the Service's subdomain %s", svc.Name)
	}
	n := int(*spec.Completions)
	c := pod.Containers[0]
	args := c.Args
	peersAt := slicesIndex(args, "--peers")
	if peersAt < 0 || slicesIndex(args, "--node") < 0 || args[slicesIndex(args, "--node")+1] != "$(NODE)" ||
		len(c.Env) != 1 || c.Env[0].Name != "NODE" || c.Env[0].ValueFrom == nil || c.Env[0].ValueFrom.FieldRef == nil ||
		c.Env[0].ValueFrom.FieldRef.FieldPath != "metadata.annotations['batch.kubernetes.io/job-completion-index']" {
		t.Fatalf("the pod must run --node $(NODE), NODE its completion index, and --peers: %v %+v", args, c.Env)
	}
	peers := strings.Split(args[peersAt+1], ",")
	port := svc.Spec.Ports[0].Port
	if len(peers) != n || len(c.Ports) != 1 || c.Ports[0].ContainerPort != port {
		t.Fatalf("%d peers and container ports %v for %d completions on the Service's port %d", len(peers), c.Ports, n, port)
	}
	base := freeBase(t, n)
	var local []string
	for i, p := range peers {
		if want := fmt.Sprintf("%s-%d.%s:%d", job.Name, i, svc.Name, port); p != want {
			t.Fatalf("peer %d is %s, want %s (pod %d's name under the Service)", i, p, want, i)
		}
		local = append(local, fmt.Sprintf("127.0.0.1:%d", base+10*i))
	}
	root := t.TempDir()
	var wg sync.WaitGroup
	status := make([]int, n)
	logs := make([]string, n)
	for i := range n {
		a := make([]string, len(args))
		for k, v := range args {
			switch {
			case v == "$(NODE)":
				v = fmt.Sprint(i)
			case k == peersAt+1:
				v = strings.Join(local, ",")
			case strings.HasPrefix(v, "/data/"):
				v = filepath.Join(root, strings.TrimPrefix(v, "/data/"))
			}
			a[k] = v
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			var o strings.Builder
			status[i] = cli.RunEnv(context.Background(), func(string) string { return "" }, append(a, "--timeout", "1500ms", "--linger", "200ms"), &o, &o, randtree.System(), pingpong.System())
			logs[i] = o.String()
		}()
	}
	wg.Wait()
	for i, st := range status {
		if st != 0 {
			t.Fatalf("pod %d: status %d\n%s", i, st, logs[i])
		}
	}
	out := macepc(t, nil, "replay", "--trace", filepath.Join(root, "live", "run-000"))
	if m := regexp.MustCompile(`replayed (\d+) of (\d+) events, \d+ sends as recorded; the stopping condition holds from step`).FindStringSubmatch(out); m == nil || m[1] != m[2] {
		t.Errorf("replay of the pods' traces:\n%s", out)
	}
}
