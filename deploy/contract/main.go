// Command deploy-contract describes what each Lingua deployable is given by the deployment files,
// so a test can start the real production build with exactly that (test/platform/deployment-contract.test.ts).
//
// It renders deploy/k8s with kustomize's Go API, decodes every rendered object strictly into its
// k8s.io/api type (unknown fields, wrong types and unknown kinds are errors), decodes the Secret
// template secret.example.yaml the same way, checks that what the objects name (service accounts,
// HPA targets, PDB and Service selectors) is rendered, and, given the output of `docker-compose config`,
// reads the compose services too. It prints one JSON document on stdout and exits 1 when it found
// a problem (the problems are listed in the document and on stderr).
//
// With -release the render is what a cluster is to run (the overlay deploy/release/pin-digests.sh
// writes): every container image must then be pinned by digest (name@sha256:...), since a tag can be
// moved to other bytes after the release was checked (docs/adr/0014-release-pins-image-digests.md).
// The base, deploy/k8s, names tags and is refused in this mode.
//
// With -render it only prints the rendered objects as YAML, as `kustomize build` does, for the
// scripts and tests that read the manifests (no kustomize CLI to install).
//
//	deploy-contract -k8s deploy/k8s -secret-example deploy/k8s/secret.example.yaml [-compose rendered.yml]
//	deploy-contract -release -k8s deploy/k8s/overlays/production -secret-example deploy/k8s/secret.example.yaml
//	deploy-contract -render -k8s deploy/k8s
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kjson "k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/apimachinery/pkg/util/intstr"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"
)

// EnvVar is one variable a container gets, with where its value comes from.
type EnvVar struct {
	// Source is "literal", "configMap" or "secret".
	Source string `json:"source"`
	// Value is the literal or the ConfigMap's value; secrets carry no value, only Secret and Key.
	Value     *string `json:"value,omitempty"`
	ConfigMap string  `json:"configMap,omitempty"`
	Secret    string  `json:"secret,omitempty"`
	Key       string  `json:"key"`
}

// File is one file of a mounted volume: the key it comes from and its path inside the container.
type File struct {
	Key  string `json:"key"`
	Path string `json:"path"`
	// Mode is the file's permission bits (Kubernetes: the item's mode, else the volume's defaultMode).
	Mode *int32 `json:"mode,omitempty"`
	// HostFile is where compose reads a secret from (compose only).
	HostFile string `json:"hostFile,omitempty"`
}

// Mount is a mounted volume.
type Mount struct {
	Path     string `json:"path"`
	ReadOnly bool   `json:"readOnly"`
	// Kind is "secret", "configMap", "emptyDir" or "tmpfs".
	Kind   string `json:"kind"`
	Source string `json:"source,omitempty"`
	Files  []File `json:"files,omitempty"`
}

// Probe is an HTTP probe (or, for compose, the healthcheck command).
type Probe struct {
	Path             string   `json:"path,omitempty"`
	Port             int32    `json:"port,omitempty"`
	Command          []string `json:"command,omitempty"`
	PeriodSeconds    int32    `json:"periodSeconds,omitempty"`
	TimeoutSeconds   int32    `json:"timeoutSeconds,omitempty"`
	FailureThreshold int32    `json:"failureThreshold,omitempty"`
}

// Security is what the container is allowed.
type Security struct {
	RunAsUser  *int64 `json:"runAsUser"`
	RunAsGroup *int64 `json:"runAsGroup"`
	// FSGroup owns the files of mounted Secret volumes (without it they are root's).
	FSGroup                  *int64   `json:"fsGroup"`
	RunAsNonRoot             bool     `json:"runAsNonRoot"`
	ReadOnlyRootFilesystem   bool     `json:"readOnlyRootFilesystem"`
	AllowPrivilegeEscalation *bool    `json:"allowPrivilegeEscalation"`
	CapabilitiesDrop         []string `json:"capabilitiesDrop"`
}

// Workload is one deployable as a Deployment (or compose service) runs it.
type Workload struct {
	Name        string `json:"name"`
	Container   string `json:"container"`
	Image       string `json:"image"`
	ServicePath string `json:"servicePath,omitempty"`
	// Ports maps the container's port names to numbers (compose: none, the env says).
	Ports                         map[string]int32             `json:"ports"`
	Env                           map[string]EnvVar            `json:"env"`
	Mounts                        []Mount                      `json:"mounts"`
	Security                      Security                     `json:"securityContext"`
	Probes                        map[string]Probe             `json:"probes"`
	Resources                     map[string]map[string]string `json:"resources"`
	TerminationGracePeriodSeconds *int64                       `json:"terminationGracePeriodSeconds,omitempty"`
}

// ServicePort is where a Service port leads.
type ServicePort struct {
	Name string `json:"name"`
	Port int32  `json:"port"`
	// Deployment and ContainerPort: the Deployment the selector picks and its port number.
	Deployment    string `json:"deployment"`
	ContainerPort int32  `json:"containerPort"`
}

// Output is the whole description.
type Output struct {
	Kubernetes struct {
		Objects       []string                 `json:"objects"`
		Deployments   []Workload               `json:"deployments"`
		Services      map[string][]ServicePort `json:"services"`
		SecretExample map[string][]string      `json:"secretExample"`
	} `json:"kubernetes"`
	Compose  *ComposeOutput `json:"compose,omitempty"`
	Problems []string       `json:"problems"`
}

// ComposeOutput is the compose file's app services.
type ComposeOutput struct {
	Services []Workload `json:"services"`
}

type checker struct {
	problems []string
}

func (c *checker) problem(format string, args ...any) {
	c.problems = append(c.problems, fmt.Sprintf(format, args...))
}

func main() {
	k8sDir := flag.String("k8s", "deploy/k8s", "kustomization directory")
	secretExample := flag.String("secret-example", "deploy/k8s/secret.example.yaml", "Secret template (not in the kustomization)")
	composeFile := flag.String("compose", "", "output of `docker-compose config` (optional)")
	release := flag.Bool("release", false, "the render is a release: every container image must be pinned by digest")
	renderOnly := flag.Bool("render", false, "print the rendered objects as YAML and exit (kustomize build)")
	flag.Parse()

	if *renderOnly {
		objects, err := render(*k8sDir)
		if err != nil {
			fmt.Fprintf(os.Stderr, "kustomize build %s: %v\n", *k8sDir, err)
			os.Exit(1)
		}
		os.Stdout.Write(bytes.Join(objects, []byte("---\n")))
		return
	}

	c := &checker{}
	out := Output{}
	out.Kubernetes.Services = map[string][]ServicePort{}
	out.Kubernetes.SecretExample = map[string][]string{}

	objects, err := render(*k8sDir)
	if err != nil {
		c.problem("kustomize build %s: %v", *k8sDir, err)
	}
	decoded := c.decodeAll(objects, "kustomize build "+*k8sDir)
	examples := c.decodeSecretExample(*secretExample)
	for name, secret := range examples {
		out.Kubernetes.SecretExample[name] = secretKeys(secret)
	}

	configMaps := map[string]*corev1.ConfigMap{}
	var deployments []*appsv1.Deployment
	var services []*corev1.Service
	var hpas []*autoscalingv2.HorizontalPodAutoscaler
	var pdbs []*policyv1.PodDisruptionBudget
	serviceAccounts := map[string]bool{}
	for _, obj := range decoded {
		out.Kubernetes.Objects = append(out.Kubernetes.Objects, obj.id)
		switch o := obj.obj.(type) {
		case *corev1.ConfigMap:
			configMaps[o.Name] = o
		case *appsv1.Deployment:
			deployments = append(deployments, o)
		case *corev1.Service:
			services = append(services, o)
		case *autoscalingv2.HorizontalPodAutoscaler:
			hpas = append(hpas, o)
		case *policyv1.PodDisruptionBudget:
			pdbs = append(pdbs, o)
		case *corev1.ServiceAccount:
			serviceAccounts[o.Name] = true
		case *corev1.Secret:
			c.problem("%s: Secrets must not be in the kustomization (they hold real values); template them in secret.example.yaml", obj.id)
		}
	}
	for _, d := range deployments {
		out.Kubernetes.Deployments = append(out.Kubernetes.Deployments, c.describeDeployment(d, configMaps, examples)...)
		if *release {
			c.requireDigests(d)
		}
	}
	for _, s := range services {
		out.Kubernetes.Services[s.Name] = c.describeService(s, deployments)
	}
	if len(deployments) == 0 {
		c.problem("kustomize build %s rendered no Deployment", *k8sDir)
	}
	c.checkReferences(deployments, hpas, pdbs, serviceAccounts)

	c.checkOwnCredentials(out.Kubernetes.Deployments, false)
	if *composeFile != "" {
		out.Compose = c.describeCompose(*composeFile)
		c.checkOwnCredentials(out.Compose.Services, true)
	}

	out.Problems = c.problems
	if out.Problems == nil {
		out.Problems = []string{}
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	for _, p := range c.problems {
		fmt.Fprintln(os.Stderr, "problem:", p)
	}
	if len(c.problems) > 0 {
		os.Exit(1)
	}
}

// render runs `kustomize build dir` in-process and returns the rendered objects as YAML documents.
func render(dir string) ([][]byte, error) {
	k := krusty.MakeKustomizer(krusty.MakeDefaultOptions())
	resMap, err := k.Run(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		return nil, err
	}
	var docs [][]byte
	for _, r := range resMap.Resources() {
		doc, err := r.AsYAML()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", r.CurId(), err)
		}
		docs = append(docs, doc)
	}
	return docs, nil
}

type decodedObject struct {
	id  string
	obj runtime.Object
}

// scheme holds the API groups a Lingua manifest may use; a kind outside them is an error (add its
// group here when a manifest needs it). Only these groups are compiled in, which keeps the first
// build short (client-go's scheme would compile every group of k8s.io/api).
var scheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{corev1.AddToScheme, appsv1.AddToScheme,
		autoscalingv2.AddToScheme, policyv1.AddToScheme, networkingv1.AddToScheme, batchv1.AddToScheme,
		rbacv1.AddToScheme} {
		if err := add(s); err != nil {
			panic(err)
		}
	}
	return s
}()

// strictSerializer decodes YAML into the typed objects of k8s.io/api, failing on unknown or
// duplicate fields and on values of the wrong type (as `kubectl apply --validate=strict` does).
var strictSerializer = kjson.NewSerializerWithOptions(kjson.DefaultMetaFactory, scheme, scheme,
	kjson.SerializerOptions{Yaml: true, Strict: true})

func (c *checker) decodeAll(docs [][]byte, where string) []decodedObject {
	var objs []decodedObject
	for i, doc := range docs {
		obj, gvk, err := strictSerializer.Decode(doc, nil, nil)
		id := fmt.Sprintf("%s document %d", where, i+1)
		if gvk != nil {
			var meta struct {
				Metadata struct{ Name string } `json:"metadata"`
			}
			_ = yaml.Unmarshal(doc, &meta)
			id = fmt.Sprintf("%s/%s", gvk.Kind, meta.Metadata.Name)
		}
		if err != nil {
			// a strict error still returns the object; anything the API server would drop or refuse counts
			c.problem("%s: %v", id, err)
			continue
		}
		objs = append(objs, decodedObject{id: id, obj: obj})
	}
	return objs
}

func (c *checker) decodeSecretExample(file string) map[string]*corev1.Secret {
	secrets := map[string]*corev1.Secret{}
	raw, err := os.ReadFile(file)
	if err != nil {
		c.problem("%v", err)
		return secrets
	}
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(raw)))
	var docs [][]byte
	for {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			c.problem("%s: %v", file, err)
			break
		}
		if len(bytes.TrimSpace(stripComments(doc))) > 0 {
			docs = append(docs, doc)
		}
	}
	for _, obj := range c.decodeAll(docs, file) {
		s, ok := obj.obj.(*corev1.Secret)
		if !ok {
			c.problem("%s: %s is not a Secret", file, obj.id)
			continue
		}
		secrets[s.Name] = s
	}
	return secrets
}

func secretKeys(s *corev1.Secret) []string {
	var keys []string
	for k := range s.StringData {
		keys = append(keys, k)
	}
	for k := range s.Data {
		if _, dup := s.StringData[k]; !dup {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}

func hasSecretKey(examples map[string]*corev1.Secret, name, key string) bool {
	s, ok := examples[name]
	if !ok {
		return false
	}
	if _, ok := s.StringData[key]; ok {
		return true
	}
	_, ok = s.Data[key]
	return ok
}

func (c *checker) describeDeployment(d *appsv1.Deployment, configMaps map[string]*corev1.ConfigMap,
	examples map[string]*corev1.Secret) []Workload {
	spec := d.Spec.Template.Spec
	var workloads []Workload
	volumes := map[string]corev1.Volume{}
	for _, v := range spec.Volumes {
		volumes[v.Name] = v
	}
	for _, ctr := range spec.Containers {
		where := fmt.Sprintf("Deployment/%s container %s", d.Name, ctr.Name)
		w := Workload{
			Name: d.Name, Container: ctr.Name, Image: ctr.Image,
			Ports: map[string]int32{}, Env: map[string]EnvVar{}, Mounts: []Mount{}, Probes: map[string]Probe{},
			Resources:                     map[string]map[string]string{},
			TerminationGracePeriodSeconds: spec.TerminationGracePeriodSeconds,
		}
		for _, p := range ctr.Ports {
			w.Ports[p.Name] = p.ContainerPort
		}
		// envFrom first: `env` entries win over them, as in the kubelet
		for _, from := range ctr.EnvFrom {
			switch {
			case from.ConfigMapRef != nil:
				cm, ok := configMaps[from.ConfigMapRef.Name]
				if !ok {
					if from.ConfigMapRef.Optional == nil || !*from.ConfigMapRef.Optional {
						c.problem("%s: envFrom ConfigMap %s is not rendered", where, from.ConfigMapRef.Name)
					}
					continue
				}
				for k, v := range cm.Data {
					value := v
					w.Env[from.Prefix+k] = EnvVar{Source: "configMap", Value: &value, ConfigMap: cm.Name, Key: k}
				}
			case from.SecretRef != nil:
				s, ok := examples[from.SecretRef.Name]
				if !ok {
					c.problem("%s: envFrom Secret %s is not in the secret template", where, from.SecretRef.Name)
					continue
				}
				for _, k := range secretKeys(s) {
					w.Env[from.Prefix+k] = EnvVar{Source: "secret", Secret: s.Name, Key: k}
				}
			}
		}
		for _, e := range ctr.Env {
			switch {
			case e.ValueFrom == nil:
				value := e.Value
				w.Env[e.Name] = EnvVar{Source: "literal", Value: &value, Key: e.Name}
			case e.ValueFrom.ConfigMapKeyRef != nil:
				ref := e.ValueFrom.ConfigMapKeyRef
				cm, ok := configMaps[ref.Name]
				value, found := "", false
				if ok {
					value, found = cm.Data[ref.Key]
				}
				if !found {
					if ref.Optional == nil || !*ref.Optional {
						c.problem("%s: %s refers to ConfigMap %s key %s, which is not rendered", where, e.Name, ref.Name, ref.Key)
					}
					continue
				}
				w.Env[e.Name] = EnvVar{Source: "configMap", Value: &value, ConfigMap: ref.Name, Key: ref.Key}
			case e.ValueFrom.SecretKeyRef != nil:
				ref := e.ValueFrom.SecretKeyRef
				if !hasSecretKey(examples, ref.Name, ref.Key) {
					c.problem("%s: %s refers to Secret %s key %s, which secret.example.yaml does not declare", where, e.Name, ref.Name, ref.Key)
				}
				w.Env[e.Name] = EnvVar{Source: "secret", Secret: ref.Name, Key: ref.Key}
			default:
				c.problem("%s: %s takes its value from a source this check does not know (fieldRef/resourceFieldRef)", where, e.Name)
			}
		}
		for _, m := range ctr.VolumeMounts {
			v, ok := volumes[m.Name]
			if !ok {
				c.problem("%s: mounts volume %s, which the pod does not declare", where, m.Name)
				continue
			}
			mount := Mount{Path: m.MountPath, ReadOnly: m.ReadOnly}
			switch {
			case v.Secret != nil:
				mount.Kind, mount.Source = "secret", v.Secret.SecretName
				s, known := examples[v.Secret.SecretName]
				if !known {
					c.problem("%s: mounts Secret %s, which secret.example.yaml does not declare", where, v.Secret.SecretName)
				}
				if len(v.Secret.Items) > 0 {
					for _, it := range v.Secret.Items {
						if known && !hasSecretKey(examples, s.Name, it.Key) {
							c.problem("%s: mounts key %s of Secret %s, which secret.example.yaml does not declare", where, it.Key, s.Name)
						}
						mode := v.Secret.DefaultMode
						if it.Mode != nil {
							mode = it.Mode
						}
						mount.Files = append(mount.Files, File{Key: it.Key, Path: path.Join(m.MountPath, it.Path), Mode: mode})
					}
				} else if known {
					for _, k := range secretKeys(s) {
						mount.Files = append(mount.Files, File{Key: k, Path: path.Join(m.MountPath, k), Mode: v.Secret.DefaultMode})
					}
				}
			case v.ConfigMap != nil:
				mount.Kind, mount.Source = "configMap", v.ConfigMap.Name
			case v.EmptyDir != nil:
				mount.Kind = "emptyDir"
			default:
				mount.Kind = "other"
			}
			w.Mounts = append(w.Mounts, mount)
		}
		w.Security = security(spec.SecurityContext, ctr.SecurityContext)
		for kind, p := range map[string]*corev1.Probe{"startup": ctr.StartupProbe, "liveness": ctr.LivenessProbe, "readiness": ctr.ReadinessProbe} {
			if p == nil {
				c.problem("%s: no %s probe", where, kind)
				continue
			}
			if p.HTTPGet == nil {
				c.problem("%s: the %s probe is not an HTTP GET", where, kind)
				continue
			}
			port, ok := resolvePort(p.HTTPGet.Port, ctr.Ports)
			if !ok {
				c.problem("%s: the %s probe's port %s is not a container port", where, kind, p.HTTPGet.Port.String())
			}
			w.Probes[kind] = Probe{Path: p.HTTPGet.Path, Port: port, PeriodSeconds: p.PeriodSeconds,
				TimeoutSeconds: p.TimeoutSeconds, FailureThreshold: p.FailureThreshold}
		}
		for kind, list := range map[string]corev1.ResourceList{"requests": ctr.Resources.Requests, "limits": ctr.Resources.Limits} {
			w.Resources[kind] = map[string]string{}
			for name, q := range list {
				w.Resources[kind][string(name)] = q.String()
			}
		}
		workloads = append(workloads, w)
	}
	return workloads
}

// checkReferences: what the objects name must be rendered too. The manifests are a base patched per
// deployable (deploy/k8s/services), so a missed rename would leave a reference to the base's `app`
// that only a cluster would refuse (a pod that cannot be created, an HPA that scales nothing).
func (c *checker) checkReferences(deployments []*appsv1.Deployment, hpas []*autoscalingv2.HorizontalPodAutoscaler,
	pdbs []*policyv1.PodDisruptionBudget, serviceAccounts map[string]bool) {
	byName := map[string]*appsv1.Deployment{}
	for _, d := range deployments {
		byName[d.Name] = d
		if sa := d.Spec.Template.Spec.ServiceAccountName; sa != "" && !serviceAccounts[sa] {
			c.problem("Deployment/%s: its serviceAccountName %s is not rendered", d.Name, sa)
		}
		if d.Spec.Selector == nil || !selects(d.Spec.Selector.MatchLabels, d.Spec.Template.Labels) {
			c.problem("Deployment/%s: its selector does not match its own pod template", d.Name)
		}
	}
	for _, h := range hpas {
		ref := h.Spec.ScaleTargetRef
		if ref.Kind != "Deployment" || byName[ref.Name] == nil {
			c.problem("HorizontalPodAutoscaler/%s: its scaleTargetRef %s/%s is not rendered", h.Name, ref.Kind, ref.Name)
		}
	}
	for _, p := range pdbs {
		var matched []string
		for _, d := range deployments {
			if p.Spec.Selector != nil && selects(p.Spec.Selector.MatchLabels, d.Spec.Template.Labels) {
				matched = append(matched, d.Name)
			}
		}
		if len(matched) != 1 {
			c.problem("PodDisruptionBudget/%s selects the pods of %d Deployments %v (one expected)", p.Name, len(matched), matched)
		}
	}
}

// selects: a non-empty label selector whose every label the given labels carry.
func selects(selector, labels map[string]string) bool {
	if len(selector) == 0 {
		return false
	}
	for k, v := range selector {
		if labels[k] != v {
			return false
		}
	}
	return true
}

// pinnedImage matches an image reference that names its bytes: a digest, with or without a tag
// before it (kustomize's `digest:` writes name@sha256:<64 hex>).
var pinnedImage = regexp.MustCompile(`^[^@\s]+@sha256:[0-9a-f]{64}$`)

// requireDigests reports each container (init containers too) whose image is not pinned by digest.
func (c *checker) requireDigests(d *appsv1.Deployment) {
	spec := d.Spec.Template.Spec
	for _, ctr := range append(append([]corev1.Container{}, spec.InitContainers...), spec.Containers...) {
		if !pinnedImage.MatchString(ctr.Image) {
			c.problem("Deployment/%s container %s: image %q is not pinned by digest (a release names name@sha256:...; deploy/release/pin-digests.sh writes them)",
				d.Name, ctr.Name, ctr.Image)
		}
	}
}

func security(pod *corev1.PodSecurityContext, ctr *corev1.SecurityContext) Security {
	s := Security{CapabilitiesDrop: []string{}}
	if pod != nil {
		s.RunAsUser, s.RunAsGroup = pod.RunAsUser, pod.RunAsGroup
		s.RunAsNonRoot = pod.RunAsNonRoot != nil && *pod.RunAsNonRoot
		s.FSGroup = pod.FSGroup
	}
	if ctr != nil {
		if ctr.RunAsUser != nil {
			s.RunAsUser = ctr.RunAsUser
		}
		if ctr.RunAsGroup != nil {
			s.RunAsGroup = ctr.RunAsGroup
		}
		if ctr.RunAsNonRoot != nil {
			s.RunAsNonRoot = *ctr.RunAsNonRoot
		}
		s.ReadOnlyRootFilesystem = ctr.ReadOnlyRootFilesystem != nil && *ctr.ReadOnlyRootFilesystem
		s.AllowPrivilegeEscalation = ctr.AllowPrivilegeEscalation
		if ctr.Capabilities != nil {
			for _, cap := range ctr.Capabilities.Drop {
				s.CapabilitiesDrop = append(s.CapabilitiesDrop, string(cap))
			}
		}
	}
	return s
}

func resolvePort(port intstr.IntOrString, ports []corev1.ContainerPort) (int32, bool) {
	for _, p := range ports {
		if (port.Type == intstr.String && p.Name == port.StrVal) || (port.Type == intstr.Int && p.ContainerPort == port.IntVal) {
			return p.ContainerPort, true
		}
	}
	return 0, false
}

func (c *checker) describeService(s *corev1.Service, deployments []*appsv1.Deployment) []ServicePort {
	var target *appsv1.Deployment
	for _, d := range deployments {
		labels := d.Spec.Template.Labels
		matches := len(s.Spec.Selector) > 0
		for k, v := range s.Spec.Selector {
			if labels[k] != v {
				matches = false
			}
		}
		if matches {
			if target != nil {
				c.problem("Service/%s selects the pods of two Deployments (%s, %s)", s.Name, target.Name, d.Name)
			}
			target = d
		}
	}
	if target == nil {
		c.problem("Service/%s selects no Deployment's pods", s.Name)
		return []ServicePort{}
	}
	var ports []ServicePort
	for _, p := range s.Spec.Ports {
		tp := p.TargetPort
		if tp.Type == intstr.Int && tp.IntVal == 0 {
			tp = intstr.FromInt32(p.Port)
		}
		var number int32
		found := false
		for _, ctr := range target.Spec.Template.Spec.Containers {
			if n, ok := resolvePort(tp, ctr.Ports); ok {
				number, found = n, true
			}
		}
		if !found {
			c.problem("Service/%s port %s targets %s, which Deployment/%s does not expose", s.Name, p.Name, tp.String(), target.Name)
		}
		ports = append(ports, ServicePort{Name: p.Name, Port: p.Port, Deployment: target.Name, ContainerPort: number})
	}
	return ports
}

// The parts of `docker-compose config` output this check reads (compose validated the rest).
type composeFile struct {
	Services map[string]struct {
		Image string `json:"image"`
		Build *struct {
			Args map[string]string `json:"args"`
		} `json:"build"`
		Environment map[string]*string `json:"environment"`
		User        string             `json:"user"`
		ReadOnly    bool               `json:"read_only"`
		Tmpfs       []string           `json:"tmpfs"`
		CapDrop     []string           `json:"cap_drop"`
		SecurityOpt []string           `json:"security_opt"`
		Secrets     []struct {
			Source string `json:"source"`
			Target string `json:"target"`
		} `json:"secrets"`
		Healthcheck *struct {
			Test     []string `json:"test"`
			Interval string   `json:"interval"`
			Timeout  string   `json:"timeout"`
			Retries  int32    `json:"retries"`
		} `json:"healthcheck"`
		Deploy *struct {
			Resources struct {
				Limits       map[string]any `json:"limits"`
				Reservations map[string]any `json:"reservations"`
			} `json:"resources"`
		} `json:"deploy"`
		StopGracePeriod string `json:"stop_grace_period"`
	} `json:"services"`
	Secrets map[string]struct {
		File string `json:"file"`
	} `json:"secrets"`
}

func (c *checker) describeCompose(file string) *ComposeOutput {
	out := &ComposeOutput{Services: []Workload{}}
	raw, err := os.ReadFile(file)
	if err != nil {
		c.problem("%v", err)
		return out
	}
	var cf composeFile
	if err := yaml.Unmarshal(raw, &cf); err != nil {
		c.problem("%s: %v", file, err)
		return out
	}
	names := make([]string, 0, len(cf.Services))
	for name := range cf.Services {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		svc := cf.Services[name]
		if svc.Build == nil || svc.Build.Args["SERVICE_PATH"] == "" {
			continue // infrastructure (mongo, nats, redis, ...): not ours to boot
		}
		where := "compose service " + name
		w := Workload{Name: name, Container: name, Image: svc.Image, ServicePath: svc.Build.Args["SERVICE_PATH"],
			Ports: map[string]int32{}, Env: map[string]EnvVar{}, Mounts: []Mount{}, Probes: map[string]Probe{},
			Resources: map[string]map[string]string{"requests": {}, "limits": {}}}
		for k, v := range svc.Environment {
			if v == nil {
				c.problem("%s: %s has no value", where, k)
				continue
			}
			w.Env[k] = EnvVar{Source: "literal", Value: v, Key: k}
		}
		for _, s := range svc.Secrets {
			target := s.Target
			if target == "" {
				target = s.Source
			}
			if !strings.HasPrefix(target, "/") {
				target = "/run/secrets/" + target
			}
			def, ok := cf.Secrets[s.Source]
			if !ok {
				c.problem("%s: secret %s is not declared", where, s.Source)
			}
			w.Mounts = append(w.Mounts, Mount{Path: target, ReadOnly: true, Kind: "secret", Source: s.Source,
				Files: []File{{Key: s.Source, Path: target, HostFile: def.File}}})
		}
		for _, t := range svc.Tmpfs {
			w.Mounts = append(w.Mounts, Mount{Path: strings.SplitN(t, ":", 2)[0], Kind: "tmpfs"})
		}
		if svc.User != "" {
			parts := strings.SplitN(svc.User, ":", 2)
			if uid, err := strconv.ParseInt(parts[0], 10, 64); err == nil {
				w.Security.RunAsUser = &uid
				w.Security.RunAsNonRoot = uid != 0
			} else {
				c.problem("%s: user %q is not numeric", where, svc.User)
			}
			if len(parts) == 2 {
				if gid, err := strconv.ParseInt(parts[1], 10, 64); err == nil {
					w.Security.RunAsGroup = &gid
				}
			}
		}
		w.Security.ReadOnlyRootFilesystem = svc.ReadOnly
		w.Security.CapabilitiesDrop = append([]string{}, svc.CapDrop...)
		for _, opt := range svc.SecurityOpt {
			if opt == "no-new-privileges:true" || opt == "no-new-privileges" {
				f := false
				w.Security.AllowPrivilegeEscalation = &f
			}
		}
		if svc.Healthcheck != nil {
			w.Probes["healthcheck"] = Probe{Command: svc.Healthcheck.Test, FailureThreshold: svc.Healthcheck.Retries}
		} else {
			c.problem("%s: no healthcheck", where)
		}
		if svc.Deploy != nil {
			for k, v := range svc.Deploy.Resources.Limits {
				w.Resources["limits"][k] = fmt.Sprint(v)
			}
			for k, v := range svc.Deploy.Resources.Reservations {
				w.Resources["requests"][k] = fmt.Sprint(v)
			}
		}
		out.Services = append(out.Services, w)
	}
	if len(out.Services) == 0 {
		c.problem("%s: no app service (one built with a SERVICE_PATH build argument)", file)
	}
	return out
}

// infraURLs are the variables that carry a deployable's own infrastructure user (docs/adr/0019).
var infraURLs = []string{"MONGO_URL", "NATS_URL", "REDIS_URL"}

var infraSecret = regexp.MustCompile(`^lingua-([a-z0-9-]+)-infra$`)

// checkOwnCredentials: every deployable reaches MongoDB, NATS and Redis as its own user. In
// Kubernetes its URLs come from its own Secret lingua-<name>-infra and it reads no other
// deployable's; in compose each URL names its own user (the TS test checks the password is the
// deployable's own variable).
func (c *checker) checkOwnCredentials(workloads []Workload, compose bool) {
	for _, w := range workloads {
		where := "Deployment " + w.Name
		if compose {
			where = "compose service " + w.Name
		}
		for _, name := range infraURLs {
			v, ok := w.Env[name]
			if !ok {
				continue
			}
			if compose {
				value := ""
				if v.Value != nil {
					value = *v.Value
				}
				for _, one := range strings.Split(value, ",") {
					u, err := url.Parse(strings.TrimSpace(one))
					if err != nil || u.User == nil {
						c.problem("%s: %s carries no user (each deployable connects as its own, docs/adr/0019)", where, name)
						continue
					}
					if _, set := u.User.Password(); u.User.Username() != w.Name || !set {
						c.problem("%s: %s logs in as %q, not as %s with a password", where, name, u.User.Username(), w.Name)
					}
				}
				continue
			}
			if v.Source != "secret" || v.Secret != "lingua-"+w.Name+"-infra" {
				c.problem("%s: %s must come from its own Secret lingua-%s-infra (docs/adr/0019), not from %s %s", where, name, w.Name, v.Source, v.Secret)
			}
		}
		for name, v := range w.Env {
			if m := infraSecret.FindStringSubmatch(v.Secret); v.Source == "secret" && m != nil && m[1] != w.Name {
				c.problem("%s: %s comes from %s, another deployable's credentials", where, name, v.Secret)
			}
		}
	}
}

func stripComments(doc []byte) []byte {
	var out [][]byte
	for _, line := range bytes.Split(doc, []byte("\n")) {
		if !bytes.HasPrefix(bytes.TrimSpace(line), []byte("#")) {
			out = append(out, line)
		}
	}
	return bytes.Join(out, []byte("\n"))
}
