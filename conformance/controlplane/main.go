// Command controlplane runs a Kubernetes v1.37 control plane in one process for dralint's tests:
// an embedded etcd, kube-apiserver with the APIs a v1.37 cluster serves by default, kube-scheduler
// with its default plugins and the ResourceClaim controller of kube-controller-manager (it turns a
// pod's ResourceClaimTemplates into claims). There is no kubelet: the tests create Nodes and read
// what the scheduler did.
//
// The servers are started with the upstream test-server helpers
// (k8s.io/kubernetes/cmd/kube-apiserver/app/testing and cmd/kube-scheduler/app/testing), which
// take a *testing.T; testing.Main gives this command one. It writes a kubeconfig when every part
// is ready and stops cleanly on SIGTERM or SIGINT, or when its parent process is gone.
package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
	"k8s.io/apiserver/pkg/storage/storagebackend"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/klog/v2"
	apiservertesting "k8s.io/kubernetes/cmd/kube-apiserver/app/testing"
	schedulertesting "k8s.io/kubernetes/cmd/kube-scheduler/app/testing"
	"k8s.io/kubernetes/pkg/controller/resourceclaim"
)

// forbiddenToken authenticates a user that RBAC grants nothing: the "forbidden" context of the
// kubeconfig, for testing how clients report a 403.
const forbiddenToken = "dralint-forbidden-token"

var (
	kubeconfigPath = flag.String("kubeconfig", "", "where to write the kubeconfig once the control plane is ready (required)")
	dataDir        = flag.String("data-dir", "", "directory for etcd's data and the servers' files (default: a temporary one)")
	startTimeout   = flag.Duration("start-timeout", 3*time.Minute, "give up when the control plane is not ready within this time")
)

func main() {
	testing.Main(
		func(string, string) (bool, error) { return true, nil },
		[]testing.InternalTest{{Name: "ControlPlane", F: run}},
		nil, nil,
	)
}

// run starts every part, writes the kubeconfig and waits for a signal; deferred calls stop the
// parts in the reverse order.
func run(t *testing.T) {
	if *kubeconfigPath == "" {
		t.Fatal("--kubeconfig is required")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, orphaned := context.WithCancel(ctx)
	defer orphaned()
	go stopWhenOrphaned(orphaned)
	dir := *dataDir
	if dir == "" {
		dir = t.TempDir()
	}
	deadline := time.AfterFunc(*startTimeout, func() {
		fmt.Fprintf(os.Stderr, "controlplane: not ready within %s\n", *startTimeout)
		os.Exit(3)
	})

	etcdURL, stopEtcd := startEtcd(t, filepath.Join(dir, "etcd"))
	defer stopEtcd()

	storage := storagebackend.NewDefaultConfig("/registry", nil)
	storage.Transport.ServerList = []string{etcdURL}
	tokenFile := filepath.Join(dir, "tokens.csv")
	if err := os.WriteFile(tokenFile, []byte(forbiddenToken+",nobody,nobody-uid\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	api, err := apiservertesting.StartTestServer(t,
		&apiservertesting.TestServerInstanceOptions{DisableInvariantChecks: true},
		[]string{
			// As test/integration/framework.DefaultTestServerFlags: no Endpoints reconciler on
			// loopback, no ServiceAccount admission without its controller. Without a node
			// lifecycle controller, TaintNodesByCondition's not-ready taint would stay on every
			// Node the tests create.
			"--endpoint-reconciler-type=none",
			"--disable-admission-plugins=ServiceAccount,TaintNodesByCondition",
			"--authorization-mode=RBAC",
			"--token-auth-file=" + tokenFile,
		},
		storage)
	if err != nil {
		t.Fatalf("kube-apiserver: %v", err)
	}
	defer api.TearDownFn()

	config := api.ClientConfig
	kubeconfig := filepath.Join(dir, "components.kubeconfig")
	if err := writeKubeconfig(kubeconfig, config); err != nil {
		t.Fatal(err)
	}
	client := kubernetes.NewForConfigOrDie(config)

	controllerCtx, stopController := context.WithCancel(ctx)
	defer stopController()
	startClaimController(t, controllerCtx, client)

	scheduler, err := schedulertesting.StartTestServer(t, ctx, []string{
		"--kubeconfig=" + kubeconfig,
		"--authentication-kubeconfig=" + kubeconfig,
		"--authorization-kubeconfig=" + kubeconfig,
		"--leader-elect=false",
	})
	if err != nil {
		t.Fatalf("kube-scheduler: %v", err)
	}
	defer scheduler.TearDownFn()

	if err := writeKubeconfig(*kubeconfigPath, config); err != nil {
		t.Fatal(err)
	}
	deadline.Stop()
	fmt.Println("controlplane: ready, kubeconfig", *kubeconfigPath)
	<-ctx.Done()
	fmt.Println("controlplane: stopping")
}

// stopWhenOrphaned stops the control plane when the process that started it is gone (a test
// runner killed before it could send SIGTERM), so that no server outlives its tests.
func stopWhenOrphaned(stop context.CancelFunc) {
	parent := os.Getppid()
	for os.Getppid() == parent {
		time.Sleep(time.Second)
	}
	fmt.Fprintln(os.Stderr, "controlplane: the parent process is gone, stopping")
	stop()
}

// startEtcd runs an embedded single-member etcd on a free loopback port; fsync is off, as a
// throwaway test store does not need durability.
func startEtcd(t *testing.T, dir string) (string, func()) {
	cfg := embed.NewConfig()
	cfg.Dir = dir
	cfg.LogLevel = "error"
	cfg.UnsafeNoFsync = true
	clientURL := loopbackURL(t)
	peerURL := loopbackURL(t)
	cfg.ListenClientUrls = []url.URL{clientURL}
	cfg.AdvertiseClientUrls = []url.URL{clientURL}
	cfg.ListenPeerUrls = []url.URL{peerURL}
	cfg.AdvertisePeerUrls = []url.URL{peerURL}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	server, err := embed.StartEtcd(cfg)
	if err != nil {
		t.Fatalf("etcd: %v", err)
	}
	select {
	case <-server.Server.ReadyNotify():
	case err := <-server.Err():
		t.Fatalf("etcd: %v", err)
	case <-time.After(time.Minute):
		server.Close()
		t.Fatal("etcd: not ready within a minute")
	}
	return clientURL.String(), server.Close
}

// loopbackURL picks a free port on 127.0.0.1.
func loopbackURL(t *testing.T) url.URL {
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer listener.Close()
	return url.URL{Scheme: "http", Host: listener.Addr().String()}
}

// startClaimController runs kube-controller-manager's ResourceClaim controller, which creates the
// claims of a pod's resourceClaims that name a template and records them in the pod's status.
func startClaimController(t *testing.T, ctx context.Context, client kubernetes.Interface) {
	factory := informers.NewSharedInformerFactory(client, 0)
	controller, err := resourceclaim.NewController(klog.FromContext(ctx), client,
		factory.Core().V1().Pods(),
		factory.Scheduling().V1beta1().PodGroups(),
		factory.Resource().V1().ResourceClaims(),
		factory.Resource().V1().ResourceClaimTemplates())
	if err != nil {
		t.Fatalf("resourceclaim controller: %v", err)
	}
	factory.Start(ctx.Done())
	go controller.Run(ctx, 5)
}

// writeKubeconfig writes, atomically, a kubeconfig whose current context is the API server's
// loopback identity (a member of system:masters) and whose "forbidden" context is a user with no
// permission. The serving certificate is self-signed for the test, hence no verification.
func writeKubeconfig(path string, config *rest.Config) error {
	server := fmt.Sprintf("https://%s", hostPort(config.Host))
	kubeconfig := clientcmdapi.NewConfig()
	kubeconfig.Clusters["controlplane"] = &clientcmdapi.Cluster{Server: server, InsecureSkipTLSVerify: true}
	kubeconfig.AuthInfos["admin"] = &clientcmdapi.AuthInfo{Token: config.BearerToken}
	kubeconfig.AuthInfos["nobody"] = &clientcmdapi.AuthInfo{Token: forbiddenToken}
	kubeconfig.Contexts["controlplane"] = &clientcmdapi.Context{Cluster: "controlplane", AuthInfo: "admin", Namespace: "default"}
	kubeconfig.Contexts["forbidden"] = &clientcmdapi.Context{Cluster: "controlplane", AuthInfo: "nobody", Namespace: "default"}
	kubeconfig.CurrentContext = "controlplane"
	partial := path + ".partial"
	if err := clientcmd.WriteToFile(*kubeconfig, partial); err != nil {
		return err
	}
	return os.Rename(partial, path)
}

// hostPort strips the scheme from a rest.Config host.
func hostPort(host string) string {
	if parsed, err := url.Parse(host); err == nil && parsed.Host != "" {
		return parsed.Host
	}
	return host
}
