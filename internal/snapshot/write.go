package snapshot

import (
	"encoding/binary"
	"fmt"
	"io"
	"runtime"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// Frame sizes the writer uses: about a megabyte of payload each at the
// demo's shapes, enough frames for both cores to share the work, few
// enough that their headers cost nothing.
const (
	nodesPerFrame = 256
	podsPerFrame  = 1024
)

// Write encodes s to w in the current format (version 8).
func Write(w io.Writer, s *cluster.Snapshot) error {
	head := binary.AppendUvarint([]byte(Kind), Version)
	if _, err := w.Write(head); err != nil {
		return fmt.Errorf("writing snapshot: %w", err)
	}
	nodeFrames, podFrames := frames(len(s.Nodes), nodesPerFrame), frames(len(s.Pods), podsPerFrame)
	hourlyFrames := frames(len(hourlyOf(s)), workloadsPerFrame)
	total := 1 + nodeFrames + podFrames + hourlyFrames
	build := func(i int) (frame, error) {
		switch {
		case i == 0:
			return encodeFrame(frame{typ: frameHeader}, func(e *encoder) { headerPayload(e, s) })
		case i <= nodeFrames:
			return encodeFrame(frame{typ: frameNodes, index: uint32(i)}, func(e *encoder) { nodesPayload(e, s.Nodes, i-1) })
		case i <= nodeFrames+podFrames:
			return encodeFrame(frame{typ: framePods, index: uint32(i)}, func(e *encoder) { podsPayload(e, s.Pods, i-1-nodeFrames) })
		default:
			k := i - 1 - nodeFrames - podFrames
			return encodeFrame(frame{typ: frameHourly, index: uint32(i)}, func(e *encoder) { hourlyPayload(e, hourlyOf(s), k) })
		}
	}
	var buf []byte
	emit := func(f frame) error {
		buf = appendFrame(buf[:0], f)
		_, err := w.Write(buf)
		return err
	}
	if err := inOrder(total, runtime.GOMAXPROCS(0), build, emit); err != nil {
		return fmt.Errorf("writing snapshot: %w", err)
	}
	if err := emit(frame{typ: frameEnd, index: uint32(total)}); err != nil {
		return fmt.Errorf("writing snapshot: %w", err)
	}
	return nil
}

// frames is the number of frames n items take at per items a frame.
func frames(n, per int) int { return (n + per - 1) / per }

// encodeFrame encodes f's payload with a pooled encoder and compresses it.
func encodeFrame(f frame, encode func(*encoder)) (frame, error) {
	e := newEncoder()
	defer e.release()
	encode(e)
	return compress(f, e.payload())
}

func headerPayload(e *encoder, s *cluster.Snapshot) {
	e.time(s.Window.Start)
	e.time(s.Window.End)
	e.str(s.Source)
	e.str(s.ActivityMetric)
	e.nilOrLen(s.Notes == nil, len(s.Notes))
	for _, n := range s.Notes {
		e.str(n)
	}
	e.nilOrLen(s.Partial == nil, len(s.Partial))
	for _, p := range s.Partial {
		e.str(p)
	}
	e.nilOrLen(s.Nodes == nil, len(s.Nodes))
	e.nilOrLen(s.Pods == nil, len(s.Pods))
	e.uvarint(nodesPerFrame)
	e.uvarint(podsPerFrame)
	hourlyHeaderPayload(e, s.Hourly)
	// The unknown facts, then (version 5) the DRA section, (version 6)
	// the Kueue section and (version 7) the controls section.
	e.nilOrLen(s.Unknown == nil, len(s.Unknown))
	for _, u := range s.Unknown {
		e.str(u)
	}
	e.dra(s.DRA)
	e.kueue(s.Kueue)
	e.controls(s.Controls)
	// Version 8 ends the header with the version again: the file's
	// leading version lies outside every frame's CRC, and a flip of it
	// to an older version that reads the rest alike would go unnoticed.
	e.uvarint(Version)
}

func nodesPayload(e *encoder, nodes []cluster.Node, k int) {
	for i := k * nodesPerFrame; i < min(len(nodes), (k+1)*nodesPerFrame); i++ {
		e.node(&nodes[i])
	}
}

func podsPayload(e *encoder, pods []cluster.Pod, k int) {
	for i := k * podsPerFrame; i < min(len(pods), (k+1)*podsPerFrame); i++ {
		e.pod(&pods[i])
	}
}

// inOrder runs build(0..n-1) on up to workers goroutines and hands the
// results to emit in index order, holding at most 2×workers results; it
// stops at the first error.
func inOrder(n, workers int, build func(int) (frame, error), emit func(frame) error) error {
	type result struct {
		f   frame
		err error
	}
	queue := make(chan chan result, 2*workers)
	sem := make(chan struct{}, workers)
	stop := make(chan struct{})
	go func() {
		defer close(queue)
		for i := range n {
			ch := make(chan result, 1)
			select {
			case queue <- ch:
			case <-stop:
				return
			}
			sem <- struct{}{}
			go func() {
				f, err := build(i)
				<-sem
				ch <- result{f, err}
			}()
		}
	}()
	defer func() {
		close(stop)
		for range queue { // let the producer finish
		}
	}()
	for ch := range queue {
		r := <-ch
		if r.err == nil {
			r.err = emit(r.f)
		}
		if r.err != nil {
			return r.err
		}
	}
	return nil
}
